package apply

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"net"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/certs"
	"github.com/calico-pilot/calico-pilot/internal/typhatls"
)

// An operator-run cluster, as the tigera operator v1.40.15 leaves one running Calico v3.31.7 after
// `kubectl create` of its CRDs, its manifest and its custom resources (docs/layouts.md describes the
// layout; the objects here are what such a cluster was measured to hold). Nothing runs: no operator
// process, no garbage collector, no pods (playControllers reports the workloads rolled out).

// operatorOptions are the variations of an operator-run cluster a takeover test needs.
type operatorOptions struct {
	// PoolDeleted: the owner deleted default-ipv4-ippool (while the operator did not run, or it would
	// have created it again at once). PoolDisabled: the owner set its spec.disabled. Not both.
	PoolDeleted, PoolDisabled bool
	// WithoutGoldmaneWhisker: only the Installation and the APIServer were created (no Goldmane and
	// Whisker custom resources, none of their objects, calico-node without their flow-log settings).
	WithoutGoldmaneWhisker bool
	// Variant is the Installation's variant ("": Calico; "TigeraSecureEnterprise", which calico-pilot
	// must refuse to take over).
	Variant string
	// WindowsDataplane is calicoNetwork.windowsDataplane ("": Disabled, the default).
	WindowsDataplane string
}

// The releases an operator-run cluster runs.
const (
	operatorImage  = "quay.io/tigera/operator:v1.40.15"
	operatorCalico = "v3.31.7"
)

// operatorInstall is an operator-run cluster created by cluster.operatorInstall, with what a
// takeover test checks it against.
type operatorInstall struct {
	Options operatorOptions
	// InstallationUID is the UID of Installation default, which owns most of Calico's objects.
	InstallationUID types.UID
	// OwnerUIDs are the UIDs of the four custom resources by kind (Installation, APIServer, Goldmane,
	// Whisker).
	OwnerUIDs map[string]types.UID
	// UIDs are the UIDs of every object created, by objectKey ("Kind ns/name", "Kind name" when
	// cluster-scoped): the operator's objects, the custom resources, the operator's manifest, the CRDs.
	UIDs map[string]types.UID
	// Workloads are the UIDs of every DaemonSet and Deployment created, by objectKey.
	Workloads map[string]types.UID
	// CA is the operator's CA (tigera-operator/tigera-ca-private): its certificate and key as PEM.
	CA typhatls.KeyPair
	// Now is the time the certificates were issued at.
	Now time.Time

	// kinds are the kinds created with their list kinds (for ownerRefsToInstallation).
	kinds []listKind
}

// listKind is a kind the fixture created and its list's apiVersion and kind.
type listKind struct{ apiVersion, kind string }

// The workloads calico-pilot takes over (the others it may delete, never re-create).
var takenOverWorkloads = []string{
	"DaemonSet calico-system/calico-node",
	"Deployment calico-system/calico-typha",
	"Deployment calico-system/calico-kube-controllers",
}

// objectKey names an object in operatorInstall's maps and in the checks' messages.
func objectKey(kind, namespace, name string) string {
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

// operatorInstall creates an operator-run cluster on the control plane (see operatorOptions). Call
// kubeadm first when the test runs apply.
func (cl *cluster) operatorInstall(opts operatorOptions) *operatorInstall {
	cl.t.Helper()
	if opts.PoolDeleted && opts.PoolDisabled {
		cl.t.Fatal("operatorInstall: PoolDeleted and PoolDisabled exclude each other")
	}
	ctx := context.Background()
	in := &operatorInstall{Options: opts, OwnerUIDs: map[string]types.UID{}, UIDs: map[string]types.UID{},
		Workloads: map[string]types.UID{}, Now: time.Now()}

	// The CRDs: the operator's (only those the takeover reads) and Calico's of v3.31.7.
	for _, crd := range operatorCRDs() {
		in.createAs(cl, crd, "")
	}
	cl.waitEstablished(ctx, operatorCRDs())
	rel, ok := calicoversion.Default().Release(operatorCalico)
	if !ok {
		cl.t.Fatalf("the catalogue has no release %s", operatorCalico)
	}
	if err := cl.cp.InstallCalicoCRDs(ctx, rel); err != nil {
		cl.t.Fatal(err)
	}

	// What tigera-operator.yaml creates.
	for _, o := range operatorManifest() {
		in.createAs(cl, o, "")
	}

	// The custom resources the user creates (custom-resources.yaml), with the operator's defaults
	// written back into the Installation's spec and its status.
	inst := installation(opts)
	in.createAs(cl, inst, "")
	in.InstallationUID = inst.GetUID()
	in.OwnerUIDs["Installation"] = inst.GetUID()
	inst.Object["status"] = map[string]any{"variant": variantOf(opts), "calicoVersion": operatorCalico, "computed": inst.Object["spec"]}
	if err := cl.c.Status().Update(ctx, inst); err != nil {
		cl.t.Fatalf("writing Installation default's status: %v", err)
	}
	crs := []string{"APIServer"}
	if !opts.WithoutGoldmaneWhisker {
		crs = append(crs, "Goldmane", "Whisker")
	}
	for _, kind := range crs {
		cr := operatorCR(kind)
		in.createAs(cl, cr, "")
		in.OwnerUIDs[kind] = cr.GetUID()
	}
	// The APIServer controller records Ready once the API server first ran; it never clears it.
	apiServer := operatorCR("APIServer")
	if err := cl.c.Get(ctx, client.ObjectKey{Name: "default"}, apiServer); err != nil {
		cl.t.Fatal(err)
	}
	apiServer.Object["status"] = map[string]any{"state": "Ready"}
	if err := cl.c.Status().Update(ctx, apiServer); err != nil {
		cl.t.Fatalf("writing APIServer default's status: %v", err)
	}

	ca, err := typhatls.NewCA("tigera-operator-signer", in.Now, 100*365*24*time.Hour)
	if err != nil {
		cl.t.Fatal(err)
	}
	in.CA = ca
	f := &operatorFacts{opts: opts, owners: in.OwnerUIDs, ca: ca, now: in.Now}
	for _, o := range f.beforeWorkloads(cl.t) {
		in.createAs(cl, o.obj, o.owner)
		if o.status != nil {
			u := o.obj.(*unstructured.Unstructured)
			u.Object["status"] = o.status
			if err := cl.c.Status().Update(ctx, u); err != nil {
				cl.t.Fatalf("writing the status of %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		}
	}
	// calico-node's hostAliases name the goldmane Service's ClusterIP, which the API server picks.
	if !opts.WithoutGoldmaneWhisker {
		var svc corev1.Service
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: "goldmane"}, &svc); err != nil {
			cl.t.Fatal(err)
		}
		f.goldmaneIP = svc.Spec.ClusterIP
	}
	for _, o := range f.workloads() {
		in.createAs(cl, o.obj, o.owner)
	}
	return in
}

// createAs creates o, owned (controller, blockOwnerDeletion) by the custom resource of kind owner
// when owner is set, and records its UID.
func (in *operatorInstall) createAs(cl *cluster, o client.Object, owner string) {
	cl.t.Helper()
	if owner != "" {
		uid, ok := in.OwnerUIDs[owner]
		if !ok {
			cl.t.Fatalf("%s %s: no %s was created", fmt.Sprintf("%T", o), o.GetName(), owner)
		}
		o.SetOwnerReferences([]metav1.OwnerReference{ownerRef(owner, uid)})
	}
	gvk, err := cl.c.GroupVersionKindFor(o)
	if err != nil {
		cl.t.Fatal(err)
	}
	if err := cl.c.Create(context.Background(), o); err != nil {
		cl.t.Fatalf("creating %s %s/%s: %v", gvk.Kind, o.GetNamespace(), o.GetName(), err)
	}
	key := objectKey(gvk.Kind, o.GetNamespace(), o.GetName())
	generatorOrder = append(generatorOrder, gvk)
	generatorKeys = append(generatorKeys, client.ObjectKeyFromObject(o))
	in.UIDs[key] = o.GetUID()
	if gvk.Group == "apps" && (gvk.Kind == "DaemonSet" || gvk.Kind == "Deployment") {
		in.Workloads[key] = o.GetUID()
	}
	lk := listKind{apiVersion: gvk.GroupVersion().String(), kind: gvk.Kind + "List"}
	if !slices.Contains(in.kinds, lk) {
		in.kinds = append(in.kinds, lk)
	}
}

func ownerRef(kind string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "operator.tigera.io/v1", Kind: kind, Name: "default", UID: uid,
		Controller: new(true), BlockOwnerDeletion: new(true)}
}

// waitEstablished waits until every CRD of crds is Established.
func (cl *cluster) waitEstablished(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition) {
	cl.t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, want := range crds {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := cl.c.Get(ctx, client.ObjectKey{Name: want.Name}, &crd); err != nil {
				return false, err
			}
			if !slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
				return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
			}) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		cl.t.Fatalf("waiting for the operator's CRDs: %v", err)
	}
}

// operatorCRDs are minimal stand-ins of the operator's CRDs a takeover reads: cluster-scoped, any
// spec and status, a status subresource (the operator writes status through it). The operator's own
// CRDs have full schemas; a takeover only reads and deletes these objects.
func operatorCRDs() []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, k := range []struct{ kind, plural string }{
		{"APIServer", "apiservers"}, {"Goldmane", "goldmanes"}, {"Installation", "installations"},
		{"TigeraStatus", "tigerastatuses"}, {"Whisker", "whiskers"},
	} {
		preserve := apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: new(true)}
		out = append(out, &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: k.plural + ".operator.tigera.io"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "operator.tigera.io", Scope: apiextensionsv1.ClusterScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: k.kind, ListKind: k.kind + "List", Plural: k.plural, Singular: strings.ToLower(k.kind)},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: "v1", Served: true, Storage: true,
					Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": preserve, "status": preserve},
					}},
				}},
			},
		})
	}
	return out
}

func variantOf(opts operatorOptions) string {
	if opts.Variant == "" {
		return "Calico"
	}
	return opts.Variant
}

// operatorCR is an empty custom resource default of kind (APIServer, Goldmane, Whisker, TigeraStatus).
func operatorCR(kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	u.SetAPIVersion("operator.tigera.io/v1")
	u.SetKind(kind)
	u.SetName("default")
	return u
}

// installation is Installation default as the operator leaves it: its defaults written back into
// the spec, and its finalizers (one per controller that cleans up).
func installation(opts operatorOptions) *unstructured.Unstructured {
	windows := opts.WindowsDataplane
	if windows == "" {
		windows = "Disabled"
	}
	pool := map[string]any{
		"name": "default-ipv4-ippool", "cidr": "10.244.0.0/16", "blockSize": int64(26), "encapsulation": "VXLANCrossSubnet",
		"natOutgoing": "Enabled", "nodeSelector": "all()", "allowedUses": []any{"Workload", "Tunnel"},
		"assignmentMode": "Automatic", "disableBGPExport": false, "disableNewAllocations": false,
	}
	u := operatorCR("Installation")
	u.Object["spec"] = map[string]any{
		"variant": variantOf(opts),
		"cni": map[string]any{"type": "Calico", "ipam": map[string]any{"type": "Calico"}, "binDir": "/opt/cni/bin",
			"confDir": "/etc/cni/net.d", "specVersion": "Auto"},
		"calicoNetwork": map[string]any{
			"bgp": "Enabled", "hostPorts": "Enabled", "linuxDataplane": "Iptables", "windowsDataplane": windows,
			"multiInterfaceMode": "None", "nodeAddressAutodetectionV4": map[string]any{"firstFound": true},
			"linuxPolicySetupTimeoutSeconds": int64(0), "ipPools": []any{pool},
		},
		"controlPlaneReplicas":    int64(2),
		"flexVolumePath":          "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
		"kubeletVolumePluginPath": "/var/lib/kubelet",
		"nodeUpdateStrategy":      map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": int64(1)}},
		"logging": map[string]any{"cni": map[string]any{"logSeverity": "Info", "logFileMaxSize": "100Mi",
			"logFileMaxCount": int64(10), "logFileMaxAgeDays": int64(30)}},
	}
	finalizers := []string{"operator.tigera.io/installation-controller", "tigera.io/operator-cleanup", "operator.tigera.io/apiserver-controller"}
	if !opts.WithoutGoldmaneWhisker {
		finalizers = append(finalizers, "operator.tigera.io/goldmane-controller", "operator.tigera.io/whisker-controller")
	}
	u.SetFinalizers(finalizers)
	return u
}

// ownerRefsToInstallation lists, as objectKey, every object of the kinds the fixture created that
// still has an ownerReference to the Installation (by its UID), sorted.
func (in *operatorInstall) ownerRefsToInstallation(t *testing.T, cl *cluster) []string {
	t.Helper()
	var out []string
	for _, lk := range in.kinds {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(lk.apiVersion)
		list.SetKind(lk.kind)
		if err := cl.c.List(context.Background(), list); err != nil {
			t.Fatalf("listing %s: %v", lk.kind, err)
		}
		for _, o := range list.Items {
			for _, r := range o.GetOwnerReferences() {
				if r.UID == in.InstallationUID {
					out = append(out, objectKey(o.GetKind(), o.GetNamespace(), o.GetName()))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// uidsKept says which workload was deleted and created again (another UID), or nil. The workloads
// calico-pilot takes over (calico-node, calico-typha, calico-kube-controllers) must also still exist;
// the others (csi-node-driver, calico-apiserver, goldmane, whisker, tigera-operator) may be gone.
func (in *operatorInstall) uidsKept(t *testing.T, cl *cluster) error {
	t.Helper()
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(in.Workloads)) {
		kind, rest, _ := strings.Cut(key, " ")
		ns, name, _ := strings.Cut(rest, "/")
		var obj client.Object = &appsv1.Deployment{}
		if kind == "DaemonSet" {
			obj = &appsv1.DaemonSet{}
		}
		err := cl.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj)
		switch {
		case apierrors.IsNotFound(err):
			if slices.Contains(takenOverWorkloads, key) {
				errs = append(errs, fmt.Errorf("%s is gone", key))
			}
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", key, err))
		case obj.GetUID() != in.Workloads[key]:
			errs = append(errs, fmt.Errorf("%s was deleted and created again (uid %s, was %s)", key, obj.GetUID(), in.Workloads[key]))
		}
	}
	return errors.Join(errs...)
}

// typhaTLSConsistent reads the live calico-node DaemonSet and calico-typha Deployment of
// calico-system and checks that Felix and Typha can talk mutual TLS now: the files their
// FELIX_TYPHA* and TYPHA_* variables name come from volumes whose Secrets and ConfigMaps exist and
// hold those keys, Typha's CA bundle trusts calico-node's certificate for client use and Felix's
// trusts Typha's for server use, each key is its certificate's, and the CNs (and URI SANs, when set)
// are those FELIX_TYPHACN and TYPHA_CLIENTCN require. It returns every problem found.
func (in *operatorInstall) typhaTLSConsistent(t *testing.T, cl *cluster) error {
	t.Helper()
	ctx := context.Background()
	var ds appsv1.DaemonSet
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: "calico-node"}, &ds); err != nil {
		return fmt.Errorf("DaemonSet calico-system/calico-node: %w", err)
	}
	var typha appsv1.Deployment
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: "calico-typha"}, &typha); err != nil {
		return fmt.Errorf("Deployment calico-system/calico-typha: %w", err)
	}
	felix := podFiles{cl: cl, ns: "calico-system", what: "calico-node", pod: ds.Spec.Template.Spec, container: "calico-node"}
	ty := podFiles{cl: cl, ns: "calico-system", what: "calico-typha", pod: typha.Spec.Template.Spec, container: "calico-typha"}

	var errs []error
	read := func(p podFiles, env string) []byte {
		b, err := p.fileOf(ctx, env)
		if err != nil {
			errs = append(errs, err)
		}
		return b
	}
	felixCA := read(felix, "FELIX_TYPHACAFILE")
	nodePair := typhatls.KeyPair{CertPEM: read(felix, "FELIX_TYPHACERTFILE"), KeyPEM: read(felix, "FELIX_TYPHAKEYFILE")}
	typhaCA := read(ty, "TYPHA_CAFILE")
	typhaPair := typhatls.KeyPair{CertPEM: read(ty, "TYPHA_SERVERCERTFILE"), KeyPEM: read(ty, "TYPHA_SERVERKEYFILE")}
	serverCN, serverURI := felix.envOf(ctx, "FELIX_TYPHACN"), felix.envOf(ctx, "FELIX_TYPHAURISAN")
	clientCN, clientURI := ty.envOf(ctx, "TYPHA_CLIENTCN"), ty.envOf(ctx, "TYPHA_CLIENTURISAN")
	if serverCN == "" && serverURI == "" {
		errs = append(errs, errors.New("calico-node sets neither FELIX_TYPHACN nor FELIX_TYPHAURISAN: Felix would accept any Typha its CA trusts"))
	}
	if clientCN == "" && clientURI == "" {
		errs = append(errs, errors.New("calico-typha sets neither TYPHA_CLIENTCN nor TYPHA_CLIENTURISAN: Typha would accept any client its CA trusts"))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := typhatls.Check(nodePair, typhaCA, typhatls.Client, clientCN, clientURI, time.Now()); err != nil {
		errs = append(errs, fmt.Errorf("calico-typha does not accept calico-node's key pair: %w", err))
	}
	if err := typhatls.Check(typhaPair, felixCA, typhatls.Server, serverCN, serverURI, time.Now()); err != nil {
		errs = append(errs, fmt.Errorf("calico-node does not accept calico-typha's key pair: %w", err))
	}
	return errors.Join(errs...)
}

// podFiles reads what a container of a pod template sees: its environment and the files its
// ConfigMap and Secret volumes mount.
type podFiles struct {
	cl        *cluster
	ns, what  string
	pod       corev1.PodSpec
	container string
}

func (p podFiles) find() (corev1.Container, bool) {
	for _, c := range p.pod.Containers {
		if c.Name == p.container {
			return c, true
		}
	}
	return corev1.Container{}, false
}

// envOf is the value of variable name of the container (a literal, or from a ConfigMap or Secret
// key), "" when it is unset or cannot be read.
func (p podFiles) envOf(ctx context.Context, name string) string {
	v, _ := p.env(ctx, name)
	return v
}

func (p podFiles) env(ctx context.Context, name string) (string, error) {
	c, ok := p.find()
	if !ok {
		return "", fmt.Errorf("%s has no container %s", p.what, p.container)
	}
	for _, e := range c.Env {
		if e.Name != name {
			continue
		}
		switch {
		case e.ValueFrom == nil:
			return e.Value, nil
		case e.ValueFrom.ConfigMapKeyRef != nil:
			b, err := p.key(ctx, "ConfigMap", e.ValueFrom.ConfigMapKeyRef.Name, e.ValueFrom.ConfigMapKeyRef.Key)
			return string(b), err
		case e.ValueFrom.SecretKeyRef != nil:
			b, err := p.key(ctx, "Secret", e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key)
			return string(b), err
		}
		return "", fmt.Errorf("%s: %s comes from neither a ConfigMap nor a Secret", p.what, name)
	}
	return "", nil
}

// fileOf is the content of the file variable env names, read from the volume mounted there.
func (p podFiles) fileOf(ctx context.Context, env string) ([]byte, error) {
	file, err := p.env(ctx, env)
	if err != nil {
		return nil, err
	}
	if file == "" {
		return nil, fmt.Errorf("%s sets no %s", p.what, env)
	}
	c, _ := p.find()
	var mount *corev1.VolumeMount
	for i, m := range c.VolumeMounts {
		if (file == m.MountPath || strings.HasPrefix(file, strings.TrimSuffix(m.MountPath, "/")+"/")) && (mount == nil || len(m.MountPath) > len(mount.MountPath)) {
			mount = &c.VolumeMounts[i]
		}
	}
	if mount == nil {
		return nil, fmt.Errorf("%s: %s=%s is on no volume mount", p.what, env, file)
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(file, mount.MountPath), "/")
	if mount.SubPath != "" {
		rel = path.Join(mount.SubPath, rel)
	}
	for _, v := range p.pod.Volumes {
		if v.Name != mount.Name {
			continue
		}
		var kind, name string
		var items []corev1.KeyToPath
		switch {
		case v.ConfigMap != nil:
			kind, name, items = "ConfigMap", v.ConfigMap.Name, v.ConfigMap.Items
		case v.Secret != nil:
			kind, name, items = "Secret", v.Secret.SecretName, v.Secret.Items
		default:
			return nil, fmt.Errorf("%s: %s=%s is on volume %s, neither a ConfigMap nor a Secret", p.what, env, file, v.Name)
		}
		key := rel
		if len(items) > 0 {
			key = ""
			for _, it := range items {
				if it.Path == rel {
					key = it.Key
				}
			}
			if key == "" {
				return nil, fmt.Errorf("%s: %s=%s: volume %s (%s %s) projects no file %s", p.what, env, file, v.Name, kind, name, rel)
			}
		}
		b, err := p.key(ctx, kind, name, key)
		if err != nil {
			return nil, fmt.Errorf("%s: %s=%s: %w", p.what, env, file, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s: %s=%s: the mount's volume %s does not exist", p.what, env, file, mount.Name)
}

// key reads key of ConfigMap or Secret name in the pod's namespace.
func (p podFiles) key(ctx context.Context, kind, name, key string) ([]byte, error) {
	ref := objectKey(kind, p.ns, name)
	if kind == "ConfigMap" {
		var cm corev1.ConfigMap
		if err := p.cl.c.Get(ctx, client.ObjectKey{Namespace: p.ns, Name: name}, &cm); err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		if v, ok := cm.Data[key]; ok {
			return []byte(v), nil
		}
		if v, ok := cm.BinaryData[key]; ok {
			return v, nil
		}
		return nil, fmt.Errorf("%s has no key %s", ref, key)
	}
	var s corev1.Secret
	if err := p.cl.c.Get(ctx, client.ObjectKey{Namespace: p.ns, Name: name}, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	v, ok := s.Data[key]
	if !ok {
		return nil, fmt.Errorf("%s has no key %s", ref, key)
	}
	return v, nil
}

// operatorLeaf issues a certificate as the operator does: signed by its CA, with the DNS and IP SANs
// given, EKU serverAuth and clientAuth, CA:FALSE, valid about 27 months.
func operatorLeaf(t *testing.T, ca typhatls.KeyPair, cn string, dnsNames []string, ips []net.IP, now time.Time) typhatls.KeyPair {
	t.Helper()
	cb, _ := pem.Decode(ca.CertPEM)
	kb, _ := pem.Decode(ca.KeyPEM)
	if cb == nil || kb == nil {
		t.Fatal("the fixture's CA is not PEM")
	}
	caCert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	caKey, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := certs.Issue(cn, &x509.Certificate{
		Subject:               pkix.Name{CommonName: cn},
		DNSNames:              dnsNames,
		IPAddresses:           ips,
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.AddDate(0, 27, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}, caCert, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return typhatls.KeyPair{CertPEM: certPEM, KeyPEM: keyPEM}
}

// hashOf stands in for the operator's hash annotations: a digest of what it hashes.
func hashOf(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:20])
}
