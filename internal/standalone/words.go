package standalone

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// lastReadFailure is what a rollout timeout says of the last failed read of the workloads (err; nil:
// the last read succeeded): nothing when it failed only because the deadline came (the context's
// deadline, or client-go's rate limiter refusing to wait past it: "client rate limiter Wait returned
// an error: rate: Wait(n=1) would exceed context deadline"), which is the timeout itself and not news;
// any other failure plainly. What the last full read saw is said either way.
func lastReadFailure(err error) string {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "would exceed context deadline") {
		return ""
	}
	return fmt.Sprintf(" (the last read of the workloads failed: %v)", err)
}

// kubernetesWords words, for a plain cluster, a decision whose release does not support the
// cluster's Kubernetes version (d.Unsupported; "", nil when there is none): an asked release
// (--calico-version, networkConfig.calicoVersion) that does not support it and a first install on
// a version no release carried supports are refused; a running release that does not support it is
// kept, with a note on what to do. The Gardener condition's words (d.Message) speak of a shoot and
// its owner's pin; these speak of the cluster and name the lines carried with their ranges.
func kubernetesWords(cat *calicoversion.Catalogue, d calicoversion.Decision, f calicoversion.Facts, facts Facts) (note string, err error) {
	u := d.Unsupported
	if u == nil {
		return "", nil
	}
	runs := fmt.Sprintf("the cluster runs Kubernetes %s (%s)", u.Kubernetes, facts.KubernetesVersionSource)
	var carried []string
	for _, l := range cat.Lines() {
		carried = append(carried, fmt.Sprintf("%s (%s) supports Kubernetes %s", l.Name(), l.Newest(), l.KubernetesRange()))
	}
	lines := "the Calico lines this calico-pilot carries: " + strings.Join(carried, ", ")
	var supported []string
	for _, l := range u.Supported {
		supported = append(supported, l.Name())
	}
	switch {
	case !u.Pinned.IsZero() && len(supported) > 0:
		return "", fmt.Errorf("calico version: the asked release (--calico-version or networkConfig.calicoVersion) is Calico %s, which supports Kubernetes %s; %s; %s. "+
			"Ask for a line that supports Kubernetes %s (%s), or leave the release out; nothing was changed", u.Pinned, u.Pinned.Line().KubernetesRange(), runs, lines, u.Kubernetes, strings.Join(supported, ", "))
	case !u.Pinned.IsZero() || (len(supported) == 0 && !f.Deployed):
		return "", fmt.Errorf("calico version: %s, which no Calico release this calico-pilot carries supports; %s. "+
			"Run apply on a cluster whose Kubernetes version one of them supports, or use a calico-pilot that carries a Calico line for Kubernetes %s; nothing was changed", runs, lines, u.Kubernetes)
	case len(supported) == 0:
		return fmt.Sprintf("Calico %s runs and supports Kubernetes %s; %s, which no Calico release this calico-pilot carries supports; %s. apply keeps Calico %s; "+
			"a calico-pilot that carries a Calico line for Kubernetes %s can move it", d.Current, d.Current.Line().KubernetesRange(), runs, lines, d.Current, u.Kubernetes), nil
	case f.Deployed && !d.Current.SupportsKubernetes(u.Kubernetes):
		return fmt.Sprintf("Calico %s runs and supports Kubernetes %s; %s: apply keeps Calico %s; move it to a line that supports Kubernetes %s with --calico-version (%s)",
			d.Current, d.Current.Line().KubernetesRange(), runs, d.Current, u.Kubernetes, strings.Join(supported, ", ")), nil
	}
	// A first install passed over a release that does not support the version for one that does:
	// the condition's words say which, in a cluster's words; with a pin (one not carried) that is a refusal.
	if f.Pin != nil {
		return "", fmt.Errorf("calico version: %s", clusterWords(d.Message))
	}
	return clusterWords(d.Message), nil
}
