package render

import (
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"sort"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// What the optional components (apiserver.go, goldmane.go, whisker.go, csi.go) share: the operator's
// labels, pod security, key pair and CA bundle mounts, checksum annotations and the checks of their
// options (docs/components/).

// The file names of a key pair Secret (kubernetes.io/tls) and the directory CA bundle ConfigMaps are
// mounted at. The operator mounts a key pair at /<Secret name> and a bundle at /etc/pki/tls/certs; the
// bundle's key the components read is tigera-ca-bundle.crt (goldmane's CA_CERT_PATH, and the path
// whisker-backend reads by default).
const (
	caBundleMountPath = "/etc/pki/tls/certs"
	caBundleKey       = "tigera-ca-bundle.crt"
)

// componentUID is the user and group the optional components run as where Calico lets them run
// without root (the operator's non-root context): calico-apiserver, goldmane, whisker, whisker-backend.
const componentUID int64 = 10001

// AnnotationChecksumPrefix prefixes the pod template annotation of each Secret or ConfigMap a pod
// mounts whose digest values.Components.Checksums carries (checksum/<name>).
const AnnotationChecksumPrefix = "checksum/"

// componentLabels are the operator's labels of an optional component's workload and pods: its
// selector label, k8s-app and app.kubernetes.io/name (in every layout: the goldmane and whisker
// NetworkPolicies select by app.kubernetes.io/name).
func componentLabels(w layout.Workload) map[string]string {
	return map[string]string{w.Selector.Key: w.Selector.Value, "k8s-app": w.Name, layout.LabelAppName: w.Name}
}

// checksumAnnotations are the checksum/<name> annotations of the objects a pod mounts, for those the
// caller gave a digest of; nil when none.
func checksumAnnotations(c values.Components, mounted ...string) map[string]string {
	var out map[string]string
	sort.Strings(mounted)
	for _, n := range mounted {
		if v, ok := c.Checksums[n]; ok && v != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[AnnotationChecksumPrefix+n] = v
		}
	}
	return out
}

// nonRootContext runs a container as componentUID without privileges or capabilities.
func nonRootContext() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsUser: ptr.To(componentUID), RunAsGroup: ptr.To(componentUID), RunAsNonRoot: ptr.To(true),
		Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: seccompRuntimeDefault(),
	}
}

// privilegedRootContext is the CSI driver's: it mounts into the kubelet's directories with
// bidirectional propagation, which needs a privileged container running as root.
func privilegedRootContext() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](0), RunAsNonRoot: ptr.To(false),
		Privileged: ptr.To(true), AllowPrivilegeEscalation: ptr.To(true),
		Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: seccompRuntimeDefault(),
	}
}

// keyPairVolume is the volume of key pair Secret name, named after it.
func keyPairVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}}
}

// keyPairMount mounts keyPairVolume(name) read-only at /<name>.
func keyPairMount(name string) corev1.VolumeMount {
	return corev1.VolumeMount{Name: name, MountPath: "/" + name, ReadOnly: true}
}

// keyPairFile is the path of file (tls.crt, tls.key) of key pair name in the pod.
func keyPairFile(name, file string) string { return path.Join("/", name, file) }

// caBundleMount mounts CA bundle ConfigMap name (volume of the same name) read-only at caBundleMountPath.
func caBundleMount(name string) corev1.VolumeMount {
	return corev1.VolumeMount{Name: name, MountPath: caBundleMountPath, ReadOnly: true}
}

// controlPlaneTolerations let a control-plane Deployment run on control-plane nodes and in critical
// add-ons only mode (the operator's for goldmane and whisker; calico-apiserver's without the latter).
func controlPlaneTolerations(criticalAddons bool) []corev1.Toleration {
	t := []corev1.Toleration{
		{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule},
	}
	if criticalAddons {
		t = append(t, corev1.Toleration{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists})
	}
	return t
}

// tcpPort is a NetworkPolicy port.
func tcpPort(port int32) networkingv1.NetworkPolicyPort {
	return networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(port))}
}

// goldmaneHost is the name calico-node and whisker-backend reach goldmane by (its Service in the
// layout's namespace; the operator's certificate names it), with its port.
func goldmaneHost(l layout.Layout) string {
	return fmt.Sprintf("%s.%s.svc:%d", l.ComponentsOf().Goldmane.Service, l.Namespace, goldmanePort)
}

// checkComponents rejects optional components the options cannot render.
func checkComponents(o *values.Options) error {
	c := o.Components
	if !c.Any() {
		return nil
	}
	var errs []error
	if err := layoutOf(o).ComponentsOf().Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Whisker && !c.Goldmane {
		errs = append(errs, errors.New("whisker is on without goldmane: whisker-backend reads flows from Goldmane"))
	}
	if c.APIServer && c.APIServiceCABundle == "" {
		errs = append(errs, errors.New("calico-apiserver is on without a CA bundle for its APIService (values.Components.APIServiceCABundle): "+
			"the aggregator would have to skip verifying calico-apiserver's certificate"))
	}
	if c.Goldmane && o.TyphaTLS == nil {
		errs = append(errs, errors.New("goldmane is on without Typha TLS: Felix authenticates to goldmane with its Typha client key pair and checks "+
			"goldmane's certificate with the Typha CA file (FELIX_TYPHACERTFILE, FELIX_TYPHAKEYFILE, FELIX_TYPHACAFILE), and stops without them"))
	}
	for _, img := range []struct {
		on         bool
		what, name string
	}{
		{c.APIServer, "calico-apiserver", o.Images.CalicoAPIServer},
		{c.Goldmane, "goldmane", o.Images.CalicoGoldmane},
		{c.Whisker, "whisker", o.Images.CalicoWhisker},
		{c.Whisker, "whisker-backend", o.Images.CalicoWhiskerBackend},
		{c.CSIDriver, "csi", o.Images.CalicoCSI},
		{c.CSIDriver, "node-driver-registrar", o.Images.CalicoNodeDriverRegistrar},
	} {
		if img.on && img.name == "" {
			errs = append(errs, fmt.Errorf("the %s image is not set", img.what))
		}
	}
	return errors.Join(errs...)
}

// base64String is s encoded as a []byte field is in JSON.
func base64String(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
