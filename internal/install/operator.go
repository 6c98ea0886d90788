package install

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/typhatls"
)

// The tigera operator's names (docs/standalone.md "Leave the tigera operator").
const (
	OperatorGroup      = "operator.tigera.io"
	OperatorNamespace  = "tigera-operator"
	OperatorDeployment = "tigera-operator"
	// OperatorCASecret is the operator's own CA (tls.crt, tls.key), in OperatorNamespace.
	OperatorCASecret = "tigera-ca-private"
	// CopiedCASecret is calico-pilot's copy of that CA, in the operator's namespace for Calico
	// (calico-system), written when it takes the install over: Typha's certificates are renewed with
	// it, so the operator's own namespace can go afterwards.
	CopiedCASecret = "calico-pilot-typha-ca"
	// FinalizerCNIProtector is the finalizer the operator puts on calico-node's and the CNI plugin's
	// ServiceAccounts, ClusterRoles and ClusterRoleBindings; only the operator removes it.
	FinalizerCNIProtector = "tigera.io/cni-protector"
	// LabelManagedBy marks the IP pools the operator owns.
	LabelManagedBy = "app.kubernetes.io/managed-by"
)

// OwnerKinds are the operator's resources that own what it created: deleting one of them deletes
// what it owns.
var OwnerKinds = []string{"Installation", "APIServer", "Goldmane", "Whisker"}

// Operator is the tigera operator's install as it runs.
type Operator struct {
	// Signs are what give the operator away ("Installation default", "namespace calico-system", ...).
	Signs []string
	// Installation is the Installation "default" (nil when there is none).
	Installation *unstructured.Unstructured
	// Variant (Calico, TigeraSecureEnterprise), CalicoVersion (status), IPAMType (spec.cni.ipam.type),
	// WindowsDataplane (spec.calicoNetwork.windowsDataplane) as the Installation says.
	Variant, CalicoVersion, IPAMType, WindowsDataplane string
	// Pools are the Installation's spec.calicoNetwork.ipPools (name and CIDR).
	Pools []InstallationPool
	// Replicas is the tigera-operator Deployment's spec.replicas; Found says whether it exists.
	Replicas int32
	Found    bool
	// TLS is Typha's mutual TLS material as the operator keeps it (nil without a CA bundle).
	TLS *OperatorTLS
	// Components are the other components the operator runs.
	Components []Component
	// Settings are, by kind (APIServer, Goldmane, Whisker), the fields set in the spec of the
	// operator's resource named default: options calico-pilot does not render.
	Settings map[string][]string
}

// InstallationPool is one pool of the Installation's list.
type InstallationPool struct{ Name, CIDR string }

// OperatorTLS is Typha's TLS material in the operator's layout.
type OperatorTLS struct {
	// Bundle is the CA bundle ConfigMap's data; CA the operator's CA key pair (zero when its Secret
	// is missing).
	Bundle map[string]string
	CA     typhatls.KeyPair
	// Node and Typha are the key pairs of calico-node and Typha (zero when the Secret is missing).
	Node, Typha typhatls.KeyPair
}

// Component is another component the operator runs, which calico-pilot leaves as it is.
type Component struct {
	// Name says what it is; Objects are its workloads and what else matters (an APIService).
	Name    string
	Objects []string
	// Owner is the operator resource that owns it ("Installation default").
	Owner string
	// Certificate is its key pair's Secret and Expires when the certificate runs out (zero: none).
	Certificate string
	Expires     time.Time
}

// IsOperator is true when the tigera operator runs, or ran, this cluster's Calico.
func (in *Install) IsOperator() bool { return in.Operator != nil && len(in.Operator.Signs) > 0 }

// readOperatorInstall reads the operator's resources and what belongs to them, in the layout lay.
func (in *Install) readOperatorInstall(ctx context.Context, c client.Reader, lay layout.Layout) error {
	op := in.Operator
	for _, kind := range OwnerKinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(schema.GroupVersionKind{Group: OperatorGroup, Version: "v1", Kind: kind + "List"})
		if err := c.List(ctx, list); err != nil {
			if absent(err) {
				continue
			}
			return fmt.Errorf("listing the tigera operator's %s resources: %w", kind, err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			if kind == "Installation" && o.GetName() == "default" {
				op.Installation = o
			}
			if kind != "Installation" && o.GetName() == "default" {
				spec, _, _ := unstructured.NestedMap(o.Object, "spec")
				for k, v := range spec {
					if v != nil && fmt.Sprint(v) != "map[]" && fmt.Sprint(v) != "[]" && fmt.Sprint(v) != "" {
						if op.Settings == nil {
							op.Settings = map[string][]string{}
						}
						op.Settings[kind] = append(op.Settings[kind], "spec."+k)
					}
				}
				slices.Sort(op.Settings[kind])
			}
		}
	}
	if inst := op.Installation; inst != nil {
		op.Variant, _, _ = unstructured.NestedString(inst.Object, "spec", "variant")
		if op.Variant == "" {
			op.Variant, _, _ = unstructured.NestedString(inst.Object, "status", "variant")
		}
		op.CalicoVersion, _, _ = unstructured.NestedString(inst.Object, "status", "calicoVersion")
		op.IPAMType, _, _ = unstructured.NestedString(inst.Object, "spec", "cni", "ipam", "type")
		op.WindowsDataplane, _, _ = unstructured.NestedString(inst.Object, "spec", "calicoNetwork", "windowsDataplane")
		pools, _, _ := unstructured.NestedSlice(inst.Object, "spec", "calicoNetwork", "ipPools")
		for _, p := range pools {
			m, _ := p.(map[string]any)
			name, _, _ := unstructured.NestedString(m, "name")
			cidr, _, _ := unstructured.NestedString(m, "cidr")
			op.Pools = append(op.Pools, InstallationPool{Name: name, CIDR: cidr})
		}
	}
	var d appsv1.Deployment
	switch err := c.Get(ctx, client.ObjectKey{Namespace: OperatorNamespace, Name: OperatorDeployment}, &d); {
	case err == nil:
		op.Found, op.Replicas = true, 1
		if d.Spec.Replicas != nil {
			op.Replicas = *d.Spec.Replicas
		}
	case !absent(err):
		return fmt.Errorf("reading Deployment %s/%s: %w", OperatorNamespace, OperatorDeployment, err)
	}
	if err := in.readOperatorTLS(ctx, c, lay); err != nil {
		return err
	}
	return in.readComponents(ctx, c, lay)
}

// readOperatorTLS reads the CA bundle, the CA and the two key pairs.
func (in *Install) readOperatorTLS(ctx context.Context, c client.Reader, lay layout.Layout) error {
	tls := layout.TigeraOperatorTyphaTLS()
	var bundle corev1.ConfigMap
	key := client.ObjectKey{Namespace: lay.Namespace, Name: tls.CABundle.ConfigMap}
	if err := c.Get(ctx, key, &bundle); err != nil {
		return ignoreAbsent(err, "ConfigMap", key)
	}
	t := &OperatorTLS{Bundle: bundle.Data}
	for _, s := range []struct {
		ns, name string
		into     *typhatls.KeyPair
	}{
		// calico-pilot's copy first: after a takeover the operator's namespace may be gone.
		{lay.Namespace, CopiedCASecret, &t.CA},
		{OperatorNamespace, OperatorCASecret, &t.CA},
		{lay.Namespace, tls.NodeSecret, &t.Node},
		{lay.Namespace, tls.TyphaSecret, &t.Typha},
	} {
		if len(s.into.CertPEM) > 0 {
			continue
		}
		var sec corev1.Secret
		key := client.ObjectKey{Namespace: s.ns, Name: s.name}
		if err := c.Get(ctx, key, &sec); err != nil {
			if err := ignoreAbsent(err, "Secret", key); err != nil {
				return err
			}
			continue
		}
		*s.into = typhatls.KeyPair{CertPEM: sec.Data[corev1.TLSCertKey], KeyPEM: sec.Data[corev1.TLSPrivateKeyKey]}
	}
	in.Operator.TLS = t
	return nil
}

// readComponents reads the components the operator runs beside Calico's three: the API server
// (with its APIService), Goldmane, Whisker and the CSI driver, and the expiry of their certificates.
func (in *Install) readComponents(ctx context.Context, c client.Reader, lay layout.Layout) error {
	for _, comp := range []struct {
		name, kind, workload, secret string
		extra                        []string
	}{
		{"calico-apiserver", "Deployment", "calico-apiserver", "calico-apiserver-certs", []string{"APIService v3.projectcalico.org"}},
		{"goldmane", "Deployment", "goldmane", "goldmane-key-pair", nil},
		{"whisker", "Deployment", "whisker", "whisker-backend-key-pair", nil},
		{"csi-node-driver", "DaemonSet", "csi-node-driver", "", []string{"CSIDriver csi.tigera.io"}},
	} {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion("apps/v1")
		obj.SetKind(comp.kind)
		key := client.ObjectKey{Namespace: lay.Namespace, Name: comp.workload}
		if err := c.Get(ctx, key, obj); err != nil {
			if err := ignoreAbsent(err, comp.kind, key); err != nil {
				return err
			}
			continue
		}
		found := Component{Name: comp.name, Objects: append([]string{fmt.Sprintf("%s %s/%s", comp.kind, key.Namespace, key.Name)}, comp.extra...)}
		for _, ref := range obj.GetOwnerReferences() {
			if strings.HasPrefix(ref.APIVersion, OperatorGroup+"/") {
				found.Owner = ref.Kind + " " + ref.Name
			}
		}
		if comp.secret != "" {
			var sec corev1.Secret
			skey := client.ObjectKey{Namespace: lay.Namespace, Name: comp.secret}
			switch err := c.Get(ctx, skey, &sec); {
			case err == nil:
				found.Certificate = skey.Namespace + "/" + skey.Name
				if _, _, notAfter, err := typhatls.Validity(sec.Data[corev1.TLSCertKey]); err == nil {
					found.Expires = notAfter
				}
			case !absent(err):
				return fmt.Errorf("reading Secret %s: %w", skey, err)
			}
		}
		in.Operator.Components = append(in.Operator.Components, found)
	}
	return nil
}

// Refusal says why calico-pilot cannot take the operator's install over ("" when it can): a variant
// other than Calico (Calico Enterprise's components are not Calico's), a Windows data plane (no
// Windows node is rendered), Typha speaking TLS without the CA key that would renew its certificates.
func (op *Operator) Refusal(typhaTLS bool) string {
	switch {
	case op.Variant != "" && op.Variant != "Calico":
		return fmt.Sprintf("the Installation's variant is %s: calico-pilot deploys Calico's open-source components only, and taking it over would replace Calico Enterprise's", op.Variant)
	case op.WindowsDataplane != "" && op.WindowsDataplane != "Disabled":
		return fmt.Sprintf("the Installation runs a Windows data plane (spec.calicoNetwork.windowsDataplane %s): calico-pilot renders no Windows nodes, whose Calico would be left without a manager", op.WindowsDataplane)
	case typhaTLS && (op.TLS == nil || len(op.TLS.CA.KeyPEM) == 0):
		return fmt.Sprintf("Typha speaks TLS but the operator's CA (Secret %s/%s) is missing: calico-pilot could not renew Typha's and calico-node's certificates", OperatorNamespace, OperatorCASecret)
	}
	return ""
}
