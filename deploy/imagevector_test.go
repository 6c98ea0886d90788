package deploy_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/imagevector/imagevectortest"
)

// mirroredVector is a mirrored landscape's imageVectorOverwrite (docs/deployment.md, "Mirrored
// landscapes"), the one the imagevector, controller and swap-check tests use: calico-node pinned to
// v3.31.6 without `version`, so the landscape has v3.31.6 only.
const mirroredVector = imagevectortest.MirroredLandscape

// imageVectorPod is what a Deployment's pod template says about the image vector.
type imageVectorPod struct {
	Checksum string // annotation checksum/configmap-network-imagevector-overwrite
	Env      []corev1.EnvVar
	Mounts   []corev1.VolumeMount
	Volumes  []corev1.Volume
}

func imageVectorOf(d *appsv1.Deployment) imageVectorPod {
	c := d.Spec.Template.Spec.Containers[0]
	return imageVectorPod{
		Checksum: d.Spec.Template.Annotations["checksum/configmap-network-imagevector-overwrite"],
		Env:      c.Env,
		Mounts:   c.VolumeMounts,
		Volumes:  d.Spec.Template.Spec.Volumes,
	}
}

func sha256Hex(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }

// checkWebhookReadsTheVector resolves the container's IMAGEVECTOR_OVERWRITE through its mounts to the
// ConfigMap's key and loads it as `calico-pilot admission` does (imagevector.VectorFromEnv): the webhook
// must see exactly the landscape's releases, v3.31.6 for a Kubernetes 1.33 shoot.
func checkWebhookReadsTheVector(t *testing.T, d *appsv1.Deployment, cm *corev1.ConfigMap) {
	t.Helper()
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	lookup := func(name string) (string, bool) {
		for _, e := range c.Env {
			if e.Name == name {
				return e.Value, true
			}
		}
		return "", false
	}
	read := func(file string) ([]byte, error) {
		for _, m := range c.VolumeMounts {
			for _, v := range pod.Volumes {
				if v.Name != m.Name || v.ConfigMap == nil || v.ConfigMap.Name != cm.Name || path.Dir(file) != m.MountPath {
					continue
				}
				if data, ok := cm.Data[path.Base(file)]; ok {
					return []byte(data), nil
				}
			}
		}
		return nil, fmt.Errorf("%s: %w", file, os.ErrNotExist)
	}
	vector, err := imagevector.VectorFromEnv(lookup, read)
	if err != nil {
		t.Fatalf("%s: the webhook cannot load its image vector: %v", d.Name, err)
	}
	got := imagevector.NewResolver(vector).Availability("1.33.4").ReleaseNames()
	if diff := cmp.Diff([]string{"v3.31.6"}, got); diff != "" {
		t.Errorf("%s: releases the webhook allows for Kubernetes 1.33 (-want +got):\n%s", d.Name, diff)
	}
}

// TestChartImageVectorReachesTheAdmission: with imageVectorOverwrite the seed chart's in-chart admission
// mounts the controller's ConfigMap (rendered once) and names it by IMAGEVECTOR_OVERWRITE, with a checksum
// that rolls it; without, its pod template has none of it.
func TestChartImageVectorReachesTheAdmission(t *testing.T) {
	tls := testTLS(t)
	rel := release{name: "networking-calico", namespace: "extension-networking-calico-iv"}
	values := func(overwrite any) map[string]any {
		v := map[string]any{"admission": map[string]any{"enabled": true, "tls": map[string]any{"crt": tls.crt, "key": tls.key, "caBundle": tls.ca}}}
		if overwrite != nil {
			v["imageVectorOverwrite"] = overwrite
		}
		return v
	}
	wantTLSMount := corev1.VolumeMount{Name: "tls", MountPath: "/etc/calico-pilot/admission-tls", ReadOnly: true}
	wantTLSVolume := corev1.Volume{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "networking-calico-admission-tls"}}}

	t.Run("set", func(t *testing.T) {
		objs, err := renderChart(values(mirroredVector), rel)
		if err != nil {
			t.Fatal(err)
		}
		var configMaps []string
		for _, id := range ids(objs) {
			if strings.HasPrefix(id, "ConfigMap ") {
				configMaps = append(configMaps, id)
			}
		}
		// One ConfigMap for both Deployments.
		wantConfigMaps := []string{
			"ConfigMap extension-networking-calico-iv/networking-calico-config",
			"ConfigMap extension-networking-calico-iv/networking-calico-imagevector-overwrite",
		}
		if diff := cmp.Diff(wantConfigMaps, configMaps); diff != "" {
			t.Errorf("ConfigMaps (-want +got):\n%s", diff)
		}
		cm := &corev1.ConfigMap{}
		into(t, find(t, objs, "ConfigMap", "networking-calico-imagevector-overwrite"), cm)
		if diff := cmp.Diff(map[string]string{"images_overwrite.yaml": mirroredVector}, cm.Data); diff != "" {
			t.Errorf("ConfigMap data (-want +got):\n%s", diff)
		}
		wantVectorVolume := corev1.Volume{Name: "imagevector-overwrite", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "networking-calico-imagevector-overwrite"},
		}}}
		wantVectorMount := corev1.VolumeMount{Name: "imagevector-overwrite", MountPath: "/charts_overwrite", ReadOnly: true}
		wantEnv := corev1.EnvVar{Name: "IMAGEVECTOR_OVERWRITE", Value: "/charts_overwrite/images_overwrite.yaml"}

		admission := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", "networking-calico-admission"), admission)
		want := imageVectorPod{
			Checksum: sha256Hex(mirroredVector),
			Env:      []corev1.EnvVar{wantEnv},
			Mounts:   []corev1.VolumeMount{wantTLSMount, wantVectorMount},
			Volumes:  []corev1.Volume{wantTLSVolume, wantVectorVolume},
		}
		if diff := cmp.Diff(want, imageVectorOf(admission)); diff != "" {
			t.Errorf("admission pod template (-want +got):\n%s", diff)
		}
		checkWebhookReadsTheVector(t, admission, cm)

		// The controller reads the same ConfigMap at the same path, with the same checksum.
		controller := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", "networking-calico"), controller)
		got := imageVectorOf(controller)
		if got.Checksum != want.Checksum || !containsEnv(got.Env, wantEnv) || !containsVolume(got.Volumes, wantVectorVolume) || !containsMount(got.Mounts, wantVectorMount) {
			t.Errorf("controller pod template does not read the same image vector: %+v", got)
		}

		// A changed vector changes the admission's pod template (a rollout).
		changed := strings.Replace(mirroredVector, "v3.31.6", "v3.31.7", 1)
		again, err := renderChart(values(changed), rel)
		if err != nil {
			t.Fatal(err)
		}
		into(t, find(t, again, "Deployment", "networking-calico-admission"), admission)
		if got := imageVectorOf(admission).Checksum; got != sha256Hex(changed) {
			t.Errorf("admission checksum after a change = %q, want %q", got, sha256Hex(changed))
		}
		dryRunApply(t, objs, rel.namespace)
	})

	for _, unset := range []struct {
		name  string
		value any
	}{{"unset", nil}, {"empty", ""}} {
		t.Run(unset.name, func(t *testing.T) {
			objs, err := renderChart(values(unset.value), rel)
			if err != nil {
				t.Fatal(err)
			}
			if u := findOrNil(objs, "ConfigMap", "networking-calico-imagevector-overwrite"); u != nil {
				t.Errorf("imageVectorOverwrite %s rendered its ConfigMap", unset.name)
			}
			admission := &appsv1.Deployment{}
			into(t, find(t, objs, "Deployment", "networking-calico-admission"), admission)
			want := imageVectorPod{Mounts: []corev1.VolumeMount{wantTLSMount}, Volumes: []corev1.Volume{wantTLSVolume}}
			if diff := cmp.Diff(want, imageVectorOf(admission)); diff != "" {
				t.Errorf("admission pod template (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAdmissionChartImageVector: the admission chart takes imageVectorOverwrite (in
// spec.deployment.admission.values, which gardener-operator passes to both parts): the runtime part
// renders it as a ConfigMap in its namespace, mounted into the server and named by IMAGEVECTOR_OVERWRITE,
// with a checksum; the virtual part accepts it and renders nothing more.
func TestAdmissionChartImageVector(t *testing.T) {
	rel := release{name: "networking-calico", namespace: "garden-imagevector"}
	const name = "gardener-extension-admission-calico"
	wantCertMount := corev1.VolumeMount{Name: "cert", MountPath: "/tmp/admission-cert"}
	wantCertVolume := corev1.Volume{Name: "cert", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	wantSourceCluster := corev1.EnvVar{Name: "SOURCE_CLUSTER", Value: "enabled"}

	t.Run("runtime part", func(t *testing.T) {
		objs, err := renderAdmissionChart(t, gardenletMerge(map[string]any{"imageVectorOverwrite": mirroredVector}, operatorRuntimeValues), rel)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			"ConfigMap garden-imagevector/" + name + "-imagevector-overwrite",
			"Deployment garden-imagevector/" + name,
			"PodDisruptionBudget garden-imagevector/" + name,
			"Role garden-imagevector/" + name,
			"RoleBinding garden-imagevector/" + name,
			"Service garden-imagevector/" + name,
			"ServiceAccount garden-imagevector/" + name,
			"VerticalPodAutoscaler garden-imagevector/" + name,
		}
		if diff := cmp.Diff(want, ids(objs)); diff != "" {
			t.Errorf("runtime part objects (-want +got):\n%s", diff)
		}
		cm := &corev1.ConfigMap{}
		into(t, find(t, objs, "ConfigMap", name+"-imagevector-overwrite"), cm)
		if diff := cmp.Diff(map[string]string{"images_overwrite.yaml": mirroredVector}, cm.Data); diff != "" {
			t.Errorf("ConfigMap data (-want +got):\n%s", diff)
		}
		// The reference's labels, as on every object of the chart.
		wantLabels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/instance": "networking-calico"}
		if diff := cmp.Diff(wantLabels, cm.Labels); diff != "" {
			t.Errorf("ConfigMap labels (-want +got):\n%s", diff)
		}
		d := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", name), d)
		wantPod := imageVectorPod{
			Checksum: sha256Hex(mirroredVector),
			Env:      []corev1.EnvVar{wantSourceCluster, {Name: "IMAGEVECTOR_OVERWRITE", Value: "/charts_overwrite/images_overwrite.yaml"}},
			Mounts:   []corev1.VolumeMount{wantCertMount, {Name: "imagevector-overwrite", MountPath: "/charts_overwrite", ReadOnly: true}},
			Volumes: []corev1.Volume{wantCertVolume, {Name: "imagevector-overwrite", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: name + "-imagevector-overwrite"},
			}}}},
		}
		if diff := cmp.Diff(wantPod, imageVectorOf(d)); diff != "" {
			t.Errorf("server pod template (-want +got):\n%s", diff)
		}
		if got := len(d.Spec.Template.Annotations); got != 1 {
			t.Errorf("pod annotations %v, want only the image vector checksum", d.Spec.Template.Annotations)
		}
		checkWebhookReadsTheVector(t, d, cm)
		dryRunApply(t, objs, rel.namespace)
	})

	t.Run("runtime part with kubeconfig", func(t *testing.T) {
		values := gardenletMerge(map[string]any{"imageVectorOverwrite": mirroredVector, "kubeconfig": "apiVersion: v1\nkind: Config\n"}, operatorRuntimeValues)
		objs, err := renderAdmissionChart(t, values, rel)
		if err != nil {
			t.Fatal(err)
		}
		d := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", name), d)
		wantAnnotations := map[string]string{
			"checksum/secret-kubeconfig":                       sha256Hex("apiVersion: v1\nkind: Config\n"),
			"checksum/configmap-network-imagevector-overwrite": sha256Hex(mirroredVector),
		}
		if diff := cmp.Diff(wantAnnotations, d.Spec.Template.Annotations); diff != "" {
			t.Errorf("pod annotations (-want +got):\n%s", diff)
		}
		var mounts []string
		for _, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
			mounts = append(mounts, m.Name+" "+m.MountPath)
		}
		wantMounts := []string{"cert /tmp/admission-cert", "kubeconfig /etc/calico-pilot/admission-kubeconfig", "imagevector-overwrite /charts_overwrite"}
		if diff := cmp.Diff(wantMounts, mounts); diff != "" {
			t.Errorf("mounts (-want +got):\n%s", diff)
		}
	})

	for _, unset := range []struct {
		name  string
		value any
	}{{"unset", nil}, {"empty", ""}} {
		t.Run("runtime part, "+unset.name, func(t *testing.T) {
			values := gardenletMerge(map[string]any{}, operatorRuntimeValues)
			if unset.value != nil {
				values["imageVectorOverwrite"] = unset.value
			}
			objs, err := renderAdmissionChart(t, values, rel)
			if err != nil {
				t.Fatal(err)
			}
			if u := findOrNil(objs, "ConfigMap", name+"-imagevector-overwrite"); u != nil {
				t.Errorf("imageVectorOverwrite %s rendered its ConfigMap", unset.name)
			}
			d := &appsv1.Deployment{}
			into(t, find(t, objs, "Deployment", name), d)
			want := imageVectorPod{Env: []corev1.EnvVar{wantSourceCluster}, Mounts: []corev1.VolumeMount{wantCertMount}, Volumes: []corev1.Volume{wantCertVolume}}
			if diff := cmp.Diff(want, imageVectorOf(d)); diff != "" {
				t.Errorf("server pod template (-want +got):\n%s", diff)
			}
			if d.Spec.Template.Annotations != nil {
				t.Errorf("pod annotations %v, want none", d.Spec.Template.Annotations)
			}
		})
	}

	t.Run("virtual part", func(t *testing.T) {
		objs, err := renderAdmissionChart(t, gardenletMerge(map[string]any{"imageVectorOverwrite": mirroredVector}, operatorVirtualValues), release{name: "networking-calico", namespace: "extension-networking-calico"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"ClusterRole " + name, "ClusterRoleBinding " + name}, ids(objs)); diff != "" {
			t.Errorf("virtual part objects (-want +got):\n%s", diff)
		}
	})
}

// TestImageVectorRejected: an imageVectorOverwrite that is not an image vector fails every render that
// takes it, with the controller chart's messages: the seed chart (also with its admission on) and both
// parts of the admission chart.
func TestImageVectorRejected(t *testing.T) {
	const (
		notYAML     = "values: imageVectorOverwrite is not YAML: "
		notAVector  = "values: imageVectorOverwrite must be an image vector: a YAML document with a list 'images'"
		notAString  = "/imageVectorOverwrite"
		brokenYAML  = "images: [\n"
		noImageList = "calico-node: quay.io/calico/node\n"
	)
	seed := func(admission bool) func(v any) error {
		return func(v any) error {
			_, err := renderChart(map[string]any{"imageVectorOverwrite": v, "admission": map[string]any{"enabled": admission}}, gardenerRelease)
			return err
		}
	}
	admissionPart := func(injected map[string]any) func(v any) error {
		return func(v any) error {
			_, err := renderAdmissionChart(t, gardenletMerge(map[string]any{"imageVectorOverwrite": v}, injected), release{name: "networking-calico", namespace: "garden"})
			return err
		}
	}
	renders := []struct {
		name   string
		render func(v any) error
	}{
		{"seed chart", seed(false)},
		{"seed chart with admission", seed(true)},
		{"admission runtime part", admissionPart(operatorRuntimeValues)},
		{"admission virtual part", admissionPart(operatorVirtualValues)},
	}
	for _, r := range renders {
		for _, tt := range []struct {
			name  string
			value any
			want  string
		}{
			{"not YAML", brokenYAML, notYAML},
			{"no images list", noImageList, notAVector},
			{"images not a list", "images: calico-node\n", notAVector},
			{"not a string", map[string]any{"images": []any{}}, notAString},
		} {
			t.Run(r.name+"/"+tt.name, func(t *testing.T) {
				err := r.render(tt.value)
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %v, want one containing %q", err, tt.want)
				}
			})
		}
	}
}

func containsVolume(vs []corev1.Volume, want corev1.Volume) bool {
	for _, v := range vs {
		if cmp.Equal(v, want) {
			return true
		}
	}
	return false
}

func containsMount(ms []corev1.VolumeMount, want corev1.VolumeMount) bool {
	for _, m := range ms {
		if cmp.Equal(m, want) {
			return true
		}
	}
	return false
}
