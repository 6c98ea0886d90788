package swapcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/imagevector/imagevectortest"
)

// TestSwapCheckMirroredLandscape (issue 35): before the swap, swap-check says per shoot which
// releases the landscape's image vector has for its Kubernetes version, what a new shoot there gets
// and what the shoot gets; a shoot whose recorded release the mirror lacks is named with the entry to
// add. plan --kubeconfig SEED with a line target plans each shoot to the newest release the mirror
// has, and names the entries for a target it has not.
func TestSwapCheckMirroredLandscape(t *testing.T) {
	override := filepath.Join(t.TempDir(), "images_overwrite.yaml")
	if err := os.WriteFile(override, []byte(imagevectortest.MirroredLandscape), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("IMAGEVECTOR_OVERWRITE", override)
	config := "overlay:\n  enabled: true\n"
	nsOld := create(t, "mirror-133", seedShoot{config: config, deployed: pilotManifest(t, "mirror-133", config), providerStatus: statusV331, kubernetes: "1.33.0"})
	status317 := strings.Replace(statusV331, `"calicoVersion":"v3.31.6"`, `"calicoVersion":"v3.31.7","calicoCRDVersion":"v3.31.7"`, 1)
	ns317 := create(t, "mirror-134", seedShoot{config: config, deployed: pilotManifestAt(t, "mirror-134", config, "v3.31.7"), providerStatus: status317, kubernetes: "1.34.1"})
	kubeconfig := kubeconfigFile(t)

	var out, errOut bytes.Buffer
	cmd.Execute(context.Background(), []string{"swap-check", "--kubeconfig", kubeconfig, "-o", "json"}, strings.NewReader(""), &out, &errOut)
	var reports []struct {
		Namespace, Verdict, CalicoGets, CalicoAvailable, CalicoNew string
		Errors, Notes                                              []string
	}
	if err := json.Unmarshal(out.Bytes(), &reports); err != nil {
		t.Fatalf("not JSON: %v\n%s%s", err, out.String(), errOut.String())
	}
	const missing134 = "Calico v3.31.7's images are not in the image vector for Kubernetes 1.34.1: calico-node is example.org/mirror134/calico-node:v3.31.6 (of release v3.31.6); " +
		`add the image vector entry {name: calico-node, version: v3.31.7, repository: example.org/mirror134/calico-node, tag: v3.31.7, targetVersion: ">= 1.34"}`
	seen := 0
	for _, r := range reports {
		switch r.Namespace {
		case nsOld:
			seen++
			if r.CalicoGets != "v3.31 (v3.31.6)" || r.CalicoAvailable != "v3.31.6 (not v3.31.7, v3.32.1)" || r.CalicoNew != "v3.31.6" || len(r.Errors) != 0 {
				t.Errorf("shoot on v3.31.6: %+v", r)
			}
		case ns317:
			seen++
			want := "calico: The shoot runs Calico v3.31.7, but " + missing134 + "; it stays on Calico v3.31.7 (no release moves unless its owner or the operator asks)."
			if r.Verdict != "fails" || r.CalicoNew != "v3.31.6" || !contains(r.Notes, want) {
				t.Errorf("shoot on v3.31.7: %+v\nwant verdict fails and the note %q", r, want)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("reports for %d of 2 shoots:\n%s", seen, out.String())
	}
	out.Reset()
	cmd.Execute(context.Background(), []string{"swap-check", "--kubeconfig", kubeconfig}, strings.NewReader(""), &out, &errOut)
	if want := "  calico: runs v3.31 (v3.31.6), calico-pilot would give it v3.31 (v3.31.6)\n" +
		"  images: the image vector has Calico v3.31.6 (not v3.31.7, v3.32.1) for this Kubernetes version; a new shoot on it gets v3.31.6\n"; !strings.Contains(out.String(), want) {
		t.Errorf("swap-check text lacks %q:\n%s", want, out.String())
	}

	type row struct {
		Namespace string
		Calico    struct{ Current, Target string }
		Errors    []string
		Images    string
	}
	planSeed := func(target string) map[string]row {
		t.Helper()
		return planSeedRows(t, kubeconfig, target, func(r row) string { return r.Namespace })
	}
	if r := planSeed("v3.31")[nsOld]; r.Calico.Target != "v3.31 (v3.31.6)" || len(r.Errors) != 0 || r.Images != "v3.31.6 (not v3.31.7, v3.32.1)" {
		t.Errorf("plan to v3.31 on the mirror: %+v, want target v3.31.6", r)
	}
	if r := planSeed("v3.31.7")[ns317]; len(r.Errors) != 1 || r.Errors[0] != missing134 {
		t.Errorf("plan to v3.31.7 on the mirror: %+v\nwant the error %q", r, missing134)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
