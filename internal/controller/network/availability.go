package network

import (
	"errors"
	"fmt"
	"github.com/prometheus/client_golang/prometheus"
	"strings"

	"github.com/go-logr/logr"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
)

// CheckAvailability is the start-up check of what the operator asks against the releases the
// image vector makes available: a calico.defaultVersion or calico.rollout targetVersion that is
// available for no Kubernetes version its line supports is a configuration error, naming the image
// entry to add (a failure at start, once, instead of one per shoot). One that is available for some
// Kubernetes versions only is not: those shoots say so in their CalicoVersion condition.
func CheckAvailability(vector *imagevector.Vector, cfg *configv1alpha1.ControllerConfiguration) error {
	if vector == nil || cfg == nil || cfg.Calico == nil {
		return nil
	}
	var errs []error
	check := func(field, asked string) {
		if err := availableSomewhere(vector, asked); err != nil {
			errs = append(errs, fmt.Errorf("ControllerConfiguration %s %q: %w", field, asked, err))
		}
	}
	if d := cfg.Calico.DefaultVersion; d != nil {
		check("calico.defaultVersion", *d)
	}
	if r := cfg.Calico.Rollout; r != nil && r.TargetVersion != "" {
		check("calico.rollout.targetVersion", r.TargetVersion)
	}
	return errors.Join(errs...)
}

// availableSomewhere is nil when what asked names (a release, or a line: its newest available
// release) is available for some Kubernetes version its line supports; else the error for the first.
// A name the catalogue does not carry is left to the configuration's own validation.
func availableSomewhere(vector *imagevector.Vector, asked string) error {
	cat := vector.Catalogue()
	r, err := cat.Resolve(asked)
	if err != nil {
		return nil
	}
	var first error
	for _, k8s := range imagevector.KubernetesVersions(cat) {
		if !r.SupportsKubernetes(k8s) {
			continue
		}
		_, err := cat.ResolveAvailable(asked, vector.Availability(k8s).Func())
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// LogAvailability logs, once at start, which Calico releases the image vector makes available for
// each Kubernetes minor the catalogue's lines support, and for the missing ones the entries to add.
func LogAvailability(log logr.Logger, vector *imagevector.Vector) {
	for _, k8s := range imagevector.KubernetesVersions(vector.Catalogue()) {
		a := vector.Availability(k8s)
		kv := []any{"kubernetes", strings.TrimSuffix(k8s, ".0"), "available", a.ReleaseNames()}
		if missing := a.Missing(); len(missing) > 0 {
			var why []string
			for _, err := range missing {
				why = append(why, err.Error())
			}
			kv = append(kv, "missing", why)
		}
		log.Info("Calico releases the image vector makes available", kv...)
	}
}

// availability is the releases the image vector makes available for a shoot of Kubernetes version
// k8s (nil: every release, the embedded vector).
func (a *Actuator) availability(k8s string) calicoversion.Available {
	if a.Availability == nil {
		return nil
	}
	return a.Availability(k8s)
}

// AvailabilityMetric is the gauge that keeps the start's availability on the controller's metrics
// endpoint, where a landscape's monitoring looks: 1 for each Calico release the image vector makes
// available for a Kubernetes minor, 0 for each it does not.
const AvailabilityMetric = "calico_pilot_calico_release_available"

// RegisterAvailability registers AvailabilityMetric with reg (or takes the one registered, emptied:
// a process that starts a second manager) and sets it from the image vector.
func RegisterAvailability(reg prometheus.Registerer, vector *imagevector.Vector) error {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: AvailabilityMetric,
		Help: "1 when the image vector has every image of the Calico release for the Kubernetes minor, else 0 (docs/deployment.md \"Mirrored landscapes\").",
	}, []string{"kubernetes", "release"})
	if err := reg.Register(g); err != nil {
		var are prometheus.AlreadyRegisteredError
		ok := false
		if errors.As(err, &are) {
			g, ok = are.ExistingCollector.(*prometheus.GaugeVec)
		}
		if !ok {
			return fmt.Errorf("registering metric %s: %w", AvailabilityMetric, err)
		}
		g.Reset()
	}
	for _, k8s := range imagevector.KubernetesVersions(vector.Catalogue()) {
		a := vector.Availability(k8s)
		for _, r := range vector.Catalogue().Releases() {
			v := 0.0
			if a.Check(r) == nil {
				v = 1
			}
			g.WithLabelValues(strings.TrimSuffix(k8s, ".0"), r.Name()).Set(v)
		}
	}
	return nil
}
