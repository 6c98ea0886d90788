package standalone

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// TestDecideRefusalSpeaksOfTheCluster: a release asked with --calico-version that the cluster's
// Kubernetes version does not support is refused in the words of a plain cluster (the flag or the
// file's field, the cluster), not in a shoot's (providerConfig, the shoot).
func TestDecideRefusalSpeaksOfTheCluster(t *testing.T) {
	cat := calicoversion.Default()
	lines := cat.Lines()
	from, to := lines[0].Newest(), lines[len(lines)-1].Newest()
	kubernetes := ""
	for minor := 20; minor < 60 && kubernetes == ""; minor++ {
		if k := fmt.Sprintf("1.%d.0", minor); from.SupportsKubernetes(k) && !to.SupportsKubernetes(k) {
			kubernetes = k
		}
	}
	if kubernetes == "" {
		t.Skipf("every Kubernetes version %s supports, %s supports too", from, to)
	}
	a := &Applier{Catalogue: cat, Now: time.Now}
	req := Request{Config: &calicov1alpha1.NetworkConfig{}, CalicoVersion: to.Line().String(), Out: io.Discard, Facts: Facts{KubernetesVersionSource: "the API server's version"}}
	_, err := a.decide(req, calicoversion.Facts{Recorded: from.Name(), Deployed: true, Kubernetes: kubernetes, Now: time.Now(), Pin: askedPin(req)})
	if err == nil {
		t.Fatalf("%s on Kubernetes %s was not refused", to, kubernetes)
	}
	for _, want := range []string{"calico version: the asked release (--calico-version or networkConfig.calicoVersion) is Calico " + to.Name(),
		"the cluster runs Kubernetes " + kubernetes + " (the API server's version)", "nothing was changed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "shoot") || strings.Contains(err.Error(), "providerConfig") {
		t.Errorf("error %q speaks of a shoot", err)
	}
}
