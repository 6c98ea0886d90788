package render_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/calico-pilot/calico-pilot/internal/render"
)

func installCNIPlugins(t *testing.T) (*appsv1.DaemonSet, int) {
	t.Helper()
	ds, ok := ids(renderScenario(t, scenarioByName(t, "multus-install-cni-plugins")))[id{"DaemonSet", "multus"}].(*appsv1.DaemonSet)
	if !ok {
		t.Fatal("no multus DaemonSet")
	}
	for i, c := range ds.Spec.Template.Spec.InitContainers {
		if c.Name == "install-cni-plugins" {
			return ds, i
		}
	}
	t.Fatal("no install-cni-plugins init container")
	return nil, 0
}

// TestInstallCNIPluginsCopies runs the rendered init container's script with /bin/sh on a fake
// image directory and a fake host directory (the two paths replaced by temporary ones): every
// regular file directly in the source is installed, except Calico's own four; directories,
// symlinks and nested files are not; a plugin Calico installed is left alone.
func TestInstallCNIPluginsCopies(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ds, i := installCNIPlugins(t)
	c := ds.Spec.Template.Spec.InitContainers[i]
	if len(c.Command) != 3 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" {
		t.Fatalf("command %q, want /bin/sh -c <script>", c.Command)
	}
	src, dst := t.TempDir(), t.TempDir()
	for _, name := range []string{"bridge", "macvlan", "ipvlan", "host-device", "host-local", "portmap", "loopback", "tuning"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte("new "+name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(src, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "subdir", "nested"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("bridge", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	// Calico's own portmap and an old bridge are already on the host.
	for name, content := range map[string]string{"portmap": "calico portmap", "bridge": "old bridge"} {
		if err := os.WriteFile(filepath.Join(dst, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := strings.NewReplacer(render.CNIPluginsSourceDir, src, render.CNIPluginsHostDir, dst).Replace(c.Command[2])
	if out, err := exec.Command("sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("script failed: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(dst)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	sort.Strings(got)
	if want := []string{"bridge", "host-device", "ipvlan", "macvlan", "portmap"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("host dir holds %v, want %v", got, want)
	}
	for name, want := range map[string]string{"portmap": "calico portmap", "bridge": "new bridge", "macvlan": "new macvlan"} {
		b, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(dst, "macvlan")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("macvlan is not executable: %v %v", fi, err)
	}

	// An image without plugins (a wrong image) fails instead of installing nothing.
	empty := strings.NewReplacer(render.CNIPluginsSourceDir, t.TempDir(), render.CNIPluginsHostDir, dst).Replace(c.Command[2])
	if err := exec.Command("sh", "-c", empty).Run(); err == nil {
		t.Error("script succeeded on an empty plugin directory")
	}
}

// TestInstallCNIPluginsImageLayout ties the init container to the image it runs: its image is the
// vector's cni-plugins, it writes to the hostPath /opt/cni/bin, and the Dockerfile's cni-plugins
// target puts the plugins where the script reads them, built by hack/build-cni-plugins.sh.
func TestInstallCNIPluginsImageLayout(t *testing.T) {
	ds, i := installCNIPlugins(t)
	spec := ds.Spec.Template.Spec
	c := spec.InitContainers[i]
	opts := scenarioOptions(t, scenarioByName(t, "multus-install-cni-plugins"))
	if c.Image != opts.Images.CNIPlugins || !strings.Contains(c.Image, "/cni-plugins:") {
		t.Errorf("image %q, want the vector's cni-plugins %q", c.Image, opts.Images.CNIPlugins)
	}
	mounted := ""
	for _, m := range c.VolumeMounts {
		if m.MountPath == render.CNIPluginsHostDir {
			mounted = m.Name
		}
	}
	hostPath := ""
	for _, v := range spec.Volumes {
		if v.Name == mounted && v.HostPath != nil {
			hostPath = v.HostPath.Path
		}
	}
	if hostPath != "/opt/cni/bin" {
		t.Errorf("%s is volume %q with hostPath %q, want /opt/cni/bin", render.CNIPluginsHostDir, mounted, hostPath)
	}

	dockerfile, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stage := regexp.MustCompile(`(?m)^FROM \S+ AS cni-plugins\n((?:[^F\n].*\n|\n)*)`).FindSubmatch(dockerfile)
	if stage == nil {
		t.Fatal("Dockerfile has no cni-plugins target")
	}
	if !strings.Contains(string(stage[1]), "COPY --from=cni-plugins-build "+render.CNIPluginsSourceDir+"/ "+render.CNIPluginsSourceDir+"/") {
		t.Errorf("cni-plugins target does not put the plugins into %s:\n%s", render.CNIPluginsSourceDir, stage[1])
	}
	if !strings.Contains(string(dockerfile), "bash /build-cni-plugins.sh "+render.CNIPluginsSourceDir) {
		t.Errorf("the cni-plugins build stage does not build into %s", render.CNIPluginsSourceDir)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "hack", "build-cni-plugins.sh")); err != nil {
		t.Error(err)
	}
}
