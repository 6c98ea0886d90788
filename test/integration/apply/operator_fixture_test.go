package apply

import (
	"bytes"
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path"
	"path/filepath"
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
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/certs"
	"github.com/calico-pilot/calico-pilot/internal/typhatls"
)

// An operator-run cluster, as the tigera operator v1.40.15 leaves one running Calico v3.31.7 after
// `kubectl create` of its CRDs, its manifest and its custom resources (docs/layouts.md describes the
// layout). The objects are recorded in operatorFixtureDir as `kubectl get -o yaml` shows them, less
// what the API server sets; testdata/tigera-operator-v1.40/README.md says what the loader fills in.
// Nothing runs: no operator process, no garbage collector, no pods (playControllers reports the
// workloads rolled out).

// operatorFixtureDir holds the recorded objects, one file per group of kinds, created in the
// files' order and each file's order.
const operatorFixtureDir = "testdata/tigera-operator-v1.40"

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

// The Calico release an operator-run cluster runs (its CRDs are installed after the operator's).
const operatorCalico = "v3.31.7"

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

// operatorInstall creates an operator-run cluster on the control plane from the recorded objects
// (see operatorOptions for the variations). Call kubeadm first when the test runs apply.
func (cl *cluster) operatorInstall(opts operatorOptions) *operatorInstall {
	cl.t.Helper()
	if opts.PoolDeleted && opts.PoolDisabled {
		cl.t.Fatal("operatorInstall: PoolDeleted and PoolDisabled exclude each other")
	}
	ctx := context.Background()
	in := &operatorInstall{Options: opts, OwnerUIDs: map[string]types.UID{}, UIDs: map[string]types.UID{},
		Workloads: map[string]types.UID{}, Now: time.Now()}
	files, err := filepath.Glob(filepath.Join(operatorFixtureDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		cl.t.Fatalf("no recorded objects in %s: %v", operatorFixtureDir, err)
	}
	tls := newOperatorTLS(cl.t, in.Now)
	in.CA = tls.ca
	for _, file := range files {
		objs, err := readObjects(file)
		if err != nil {
			cl.t.Fatal(err)
		}
		var crds []string
		for _, u := range objs {
			if !opts.keeps(u) {
				continue
			}
			opts.edit(u)
			if err := fill(ctx, cl, u, tls); err != nil {
				cl.t.Fatalf("%s: %s %s: %v", file, u.GetKind(), u.GetName(), err)
			}
			in.create(cl, u)
			if u.GetKind() == "CustomResourceDefinition" {
				crds = append(crds, u.GetName())
			}
		}
		if len(crds) > 0 {
			cl.waitEstablished(ctx, crds)
			// Calico's CRDs, which the operator installs (-manage-crds=true), as calico-pilot renders them.
			rel, ok := calicoversion.Default().Release(operatorCalico)
			if !ok {
				cl.t.Fatalf("the catalogue has no release %s", operatorCalico)
			}
			if err := cl.cp.InstallCalicoCRDs(ctx, rel); err != nil {
				cl.t.Fatal(err)
			}
		}
	}
	return in
}

// readObjects decodes the YAML documents of file, in order.
func readObjects(file string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", file, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// The custom resources owning the operator's objects.
var operatorOwners = []string{"Installation", "APIServer", "Goldmane", "Whisker"}

// keeps says whether the variation has the recorded object u: without Goldmane and Whisker none of
// their custom resources, objects and TigeraStatus objects; with the pool deleted no pool.
func (o operatorOptions) keeps(u *unstructured.Unstructured) bool {
	gw := func(kind string) bool { return kind == "Goldmane" || kind == "Whisker" }
	if o.WithoutGoldmaneWhisker {
		if u.GetAPIVersion() == "operator.tigera.io/v1" && (gw(u.GetKind()) || u.GetKind() == "TigeraStatus" && (u.GetName() == "goldmane" || u.GetName() == "whisker")) {
			return false
		}
		if slices.ContainsFunc(u.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return gw(r.Kind) }) {
			return false
		}
	}
	return !(o.PoolDeleted && u.GetKind() == "IPPool" && u.GetName() == "default-ipv4-ippool")
}

// edit changes the recorded object u as the variation has it.
func (o operatorOptions) edit(u *unstructured.Unstructured) {
	switch {
	case u.GetKind() == "Installation":
		// The operator writes its defaulted spec back and copies it into status.computed.
		for _, base := range [][]string{{"spec"}, {"status", "computed"}} {
			if o.Variant != "" {
				_ = unstructured.SetNestedField(u.Object, o.Variant, append(slices.Clone(base), "variant")...)
			}
			if o.WindowsDataplane != "" {
				_ = unstructured.SetNestedField(u.Object, o.WindowsDataplane, append(slices.Clone(base), "calicoNetwork", "windowsDataplane")...)
			}
		}
		if o.Variant != "" {
			_ = unstructured.SetNestedField(u.Object, o.Variant, "status", "variant")
		}
		if o.WithoutGoldmaneWhisker {
			u.SetFinalizers(slices.DeleteFunc(u.GetFinalizers(), func(f string) bool {
				return f == "operator.tigera.io/goldmane-controller" || f == "operator.tigera.io/whisker-controller"
			}))
		}
	case u.GetKind() == "IPPool" && o.PoolDisabled:
		_ = unstructured.SetNestedField(u.Object, true, "spec", "disabled")
	case u.GetKind() == "DaemonSet" && u.GetName() == "calico-node" && o.WithoutGoldmaneWhisker:
		// Without Goldmane calico-node sends no flow logs and needs no address for goldmane.
		unstructured.RemoveNestedField(u.Object, "spec", "template", "spec", "hostAliases")
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			c := c.(map[string]any)
			env, _ := c["env"].([]any)
			c["env"] = slices.DeleteFunc(env, func(e any) bool {
				name, _ := e.(map[string]any)["name"].(string)
				return strings.HasPrefix(name, "FELIX_FLOWLOGS")
			})
		}
		_ = unstructured.SetNestedSlice(u.Object, containers, "spec", "template", "spec", "containers")
	}
}

// The values the recording leaves for the loader to fill in (testdata/tigera-operator-v1.40/README.md).
const (
	tokenCACert      = "CA-CERT-PEM"
	tokenCAKey       = "CA-KEY-PEM"
	tokenLeafCert    = "LEAF-CERT-PEM"
	tokenLeafKey     = "LEAF-KEY-PEM"
	tokenExpiry      = "EXPIRY"
	tokenAPICABundle = "APISERVICE-CA-BUNDLE"
	tokenGoldmaneIP  = "GOLDMANE-CLUSTER-IP"
)

// operatorTLS is the operator's CA and key pairs, issued when the fixture is loaded: recorded
// certificates would expire, and the checks compare lifetimes with the time they were issued.
type operatorTLS struct {
	t      *testing.T
	now    time.Time
	ca     typhatls.KeyPair
	leaves map[string]typhatls.KeyPair // by Secret name: the copies in both namespaces are identical
}

// operatorLeafSubjects are the subjects of the operator's key pairs by Secret name (their DNS names
// are in the Secret's annotation certificates.operator.tigera.io/dns-names).
var operatorLeafSubjects = map[string]struct {
	cn  string
	ips []net.IP
}{
	"calico-apiserver-certs":      {cn: "calico-api"},
	"goldmane-key-pair":           {cn: "goldmane"},
	"node-certs":                  {cn: "typha-client"},
	"typha-certs":                 {cn: "typha-server"},
	"typha-certs-noncluster-host": {cn: "typha-server-noncluster-host"},
	"whisker-backend-key-pair":    {cn: "127.0.0.1", ips: []net.IP{net.ParseIP("127.0.0.1")}},
}

// The lifetimes of the operator's CA and key pairs.
const operatorCALifetime = 100 * 365 * 24 * time.Hour

func newOperatorTLS(t *testing.T, now time.Time) *operatorTLS {
	t.Helper()
	ca, err := typhatls.NewCA("tigera-operator-signer", now, operatorCALifetime)
	if err != nil {
		t.Fatal(err)
	}
	return &operatorTLS{t: t, now: now, ca: ca, leaves: map[string]typhatls.KeyPair{}}
}

// leaf is the key pair of Secret name, issued on first use with dnsNames.
func (x *operatorTLS) leaf(name string, dnsNames []string) (typhatls.KeyPair, error) {
	if p, ok := x.leaves[name]; ok {
		return p, nil
	}
	s, ok := operatorLeafSubjects[name]
	if !ok {
		return typhatls.KeyPair{}, fmt.Errorf("no subject for the key pair of Secret %s in operatorLeafSubjects", name)
	}
	p := operatorLeaf(x.t, x.ca, s.cn, dnsNames, s.ips, x.now)
	x.leaves[name] = p
	return p, nil
}

// fill replaces the tokens of u by what they stand for: the CA and key pairs (Secrets, CA bundles,
// the APIService's caBundle, the Secrets' expiry annotation) and the goldmane Service's ClusterIP
// (calico-node's hostAliases), which the API server picked.
func fill(ctx context.Context, cl *cluster, u *unstructured.Unstructured, x *operatorTLS) error {
	annotations := u.GetAnnotations()
	dnsNames := strings.Split(annotations["certificates.operator.tigera.io/dns-names"], ",")
	leaf := func() (typhatls.KeyPair, error) { return x.leaf(u.GetName(), dnsNames) }
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	if annotations["certificates.operator.tigera.io/expiry"] == tokenExpiry {
		notAfter := x.now.Add(operatorCALifetime)
		if u.GetName() != "tigera-ca-private" {
			notAfter = x.now.AddDate(0, 27, 0)
		}
		annotations["certificates.operator.tigera.io/expiry"] = notAfter.UTC().Format(time.RFC3339)
		u.SetAnnotations(annotations)
	}
	var walk func(v any) (any, error)
	walk = func(v any) (any, error) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				r, err := walk(e)
				if err != nil {
					return nil, err
				}
				v[k] = r
			}
		case []any:
			for i, e := range v {
				r, err := walk(e)
				if err != nil {
					return nil, err
				}
				v[i] = r
			}
		case string:
			secret := u.GetKind() == "Secret"
			enc := func(b []byte) string {
				if secret {
					return b64(b) // Secret data is base64
				}
				return string(b)
			}
			switch v {
			case tokenCACert:
				return enc(x.ca.CertPEM), nil
			case tokenCAKey:
				return enc(x.ca.KeyPEM), nil
			case tokenLeafCert, tokenLeafKey:
				p, err := leaf()
				if err != nil {
					return nil, err
				}
				if v == tokenLeafCert {
					return enc(p.CertPEM), nil
				}
				return enc(p.KeyPEM), nil
			case tokenAPICABundle:
				p, err := x.leaf("calico-apiserver-certs", []string{"calico-api", "calico-api.calico-system", "calico-api.calico-system.svc", "calico-api.calico-system.svc.cluster.local"})
				if err != nil {
					return nil, err
				}
				return b64(append(slices.Clone(p.CertPEM), x.ca.CertPEM...)), nil
			case tokenGoldmaneIP:
				var svc corev1.Service
				if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: "goldmane"}, &svc); err != nil {
					return nil, fmt.Errorf("the goldmane Service's ClusterIP: %w", err)
				}
				return svc.Spec.ClusterIP, nil
			}
		}
		return v, nil
	}
	_, err := walk(u.Object)
	return err
}

// create creates u with the live UIDs of its owners (the recording has none: UIDs are the API
// server's), writes its recorded status through the status subresource and records its UID.
func (in *operatorInstall) create(cl *cluster, u *unstructured.Unstructured) {
	cl.t.Helper()
	ctx := context.Background()
	refs := u.GetOwnerReferences()
	for i, r := range refs {
		uid, ok := in.OwnerUIDs[r.Kind]
		if r.APIVersion != "operator.tigera.io/v1" || !ok {
			cl.t.Fatalf("%s %s: owner %s %s was not created before it", u.GetKind(), u.GetName(), r.Kind, r.Name)
		}
		refs[i].UID = uid
	}
	if len(refs) > 0 {
		u.SetOwnerReferences(refs)
	}
	status, hasStatus := u.Object["status"]
	delete(u.Object, "status")
	gvk := u.GroupVersionKind()
	if err := cl.c.Create(ctx, u); err != nil {
		cl.t.Fatalf("creating %s %s/%s: %v", gvk.Kind, u.GetNamespace(), u.GetName(), err)
	}
	if hasStatus {
		u.Object["status"] = status
		if err := cl.c.Status().Update(ctx, u); err != nil {
			cl.t.Fatalf("writing the status of %s %s: %v", gvk.Kind, u.GetName(), err)
		}
	}
	key := objectKey(gvk.Kind, u.GetNamespace(), u.GetName())
	in.UIDs[key] = u.GetUID()
	if gvk.Group == "apps" && (gvk.Kind == "DaemonSet" || gvk.Kind == "Deployment") {
		in.Workloads[key] = u.GetUID()
	}
	if gvk.Group == "operator.tigera.io" && slices.Contains(operatorOwners, gvk.Kind) {
		in.OwnerUIDs[gvk.Kind] = u.GetUID()
		if gvk.Kind == "Installation" {
			in.InstallationUID = u.GetUID()
		}
	}
	lk := listKind{apiVersion: gvk.GroupVersion().String(), kind: gvk.Kind + "List"}
	if !slices.Contains(in.kinds, lk) {
		in.kinds = append(in.kinds, lk)
	}
}

// waitEstablished waits until every CRD of names is Established.
func (cl *cluster) waitEstablished(ctx context.Context, names []string) {
	cl.t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := cl.c.Get(ctx, client.ObjectKey{Name: name}, &crd); err != nil {
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

// operatorCR is an empty custom resource default of kind (APIServer, Goldmane, Whisker, TigeraStatus).
func operatorCR(kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	u.SetAPIVersion("operator.tigera.io/v1")
	u.SetKind(kind)
	u.SetName("default")
	return u
}

// calicoObject is a crd.projectcalico.org/v1 object of kind.
func calicoObject(kind, name string, labels, annotations map[string]string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion("crd.projectcalico.org/v1")
	u.SetKind(kind)
	u.SetName(name)
	u.SetLabels(labels)
	u.SetAnnotations(annotations)
	return u
}

func meta(ns, name string, labels map[string]string, finalizers ...string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, Finalizers: finalizers}
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
