package deploy_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/version"
)

// TestOneVersion (issue 20 item 6): the VERSION file is the tag `make image` and `make
// image-cni-plugins` build, the charts' appVersion (their default image tag, the one the example
// ControllerRegistration and Extension deploy), the Dockerfile's default and the binary's own version
// (which tags the cni-plugins image the embedded image vector names): a landscape that builds or
// mirrors what the charts name finds every image.
func TestOneVersion(t *testing.T) {
	raw, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(raw))
	if !regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(want) {
		t.Fatalf("VERSION %q is not a release version vX.Y.Z", want)
	}
	for _, chart := range []string{"calico-pilot/Chart.yaml", "calico-pilot-admission/Chart.yaml"} {
		data, err := os.ReadFile(chart)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			AppVersion string `json:"appVersion"`
		}
		if err := yaml.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		if c.AppVersion != want {
			t.Errorf("%s appVersion %q, VERSION %q", chart, c.AppVersion, want)
		}
	}
	if version.Version != want {
		t.Errorf("internal/version default %q, VERSION %q", version.Version, want)
	}
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"VERSION ?= $(shell cat VERSION)",
		"IMAGE ?= ghcr.io/calico-pilot/calico-pilot:$(VERSION)",
		"CNI_PLUGINS_IMAGE ?= ghcr.io/calico-pilot/cni-plugins:$(VERSION)",
	} {
		if !strings.Contains(string(makefile), "\n"+line+"\n") {
			t.Errorf("Makefile lacks %q", line)
		}
	}
	dockerfile, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dockerfile), "\nARG VERSION="+want+"\n") {
		t.Errorf("Dockerfile's default VERSION is not %s", want)
	}
	imgs := rendertest.DefaultImages()
	if got := imgs.CNIPlugins; got != "ghcr.io/calico-pilot/cni-plugins:"+want {
		t.Errorf("cni-plugins image %q, want what make image-cni-plugins builds, ghcr.io/calico-pilot/cni-plugins:%s", got, want)
	}
}
