package standalone

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/install"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/typhatls"
)

// CASecret is calico-pilot's copy of the CA that signs Typha's and calico-node's certificates after
// a takeover of the tigera operator's install (install.CopiedCASecret).
const CASecret = install.CopiedCASecret

// OperatorState is the tigera operator apply stopped: what to scale it back to.
type OperatorState struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Replicas is what its Deployment had before apply scaled it to 0.
	Replicas int32 `json:"replicas"`
}

// takeover is what apply does to leave the tigera operator: nil when it does not run this cluster.
type takeover struct {
	op  *install.Operator
	lay layout.Layout
	// tls is Typha's TLS as the operator set it up (nil when Typha does not speak TLS), with the
	// checksum of the material after renewal.
	tls *layout.TyphaTLS
	// renewed are the key pairs, by Secret name, that this apply issues anew (due or missing).
	renewed map[string]typhatls.KeyPair
}

// planTakeover decides whether the cluster is the tigera operator's and whether apply can take it
// over: only with --adopt, a Calico variant without Windows nodes, and, where Typha speaks TLS, the
// operator's CA. An operator apply stopped that runs again is refused: it would revert what apply does.
func (a *Applier) planTakeover(req Request, in *install.Install, st State) (*takeover, error) {
	if !in.IsOperator() {
		return nil, nil
	}
	op := in.Operator
	if st.Operator != nil {
		if op.Found && op.Replicas > 0 {
			return nil, fmt.Errorf("the tigera operator runs again (Deployment %s/%s has %d replica(s)), after calico-pilot took its install over: it reverts what calico-pilot applies. "+
				"Scale it to 0 (kubectl -n %s scale deployment %s --replicas=0) to keep calico-pilot, or stop using calico-pilot on this cluster to give Calico back to it; nothing was changed",
				st.Operator.Namespace, st.Operator.Name, op.Replicas, st.Operator.Namespace, st.Operator.Name)
		}
	} else if !req.Adopt {
		return nil, &OperatorError{Found: op.Signs}
	}
	tlsOn := in.Typha.Enabled && in.Typha.TLS
	if r := op.Refusal(tlsOn); r != "" {
		return nil, fmt.Errorf("this cluster's Calico is run by the tigera operator (%s) and calico-pilot cannot take it over: %s; nothing was changed", strings.Join(op.Signs, "; "), r)
	}
	t := &takeover{op: op, lay: in.Layout}
	if tlsOn {
		tls := layout.TigeraOperatorTyphaTLS()
		t.tls = &tls
		if err := t.renew(a.Now()); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// renew issues, with the operator's CA, the key pairs that are due (less than a third of their
// lifetime left, or missing), and sets the checksum of the material the pods will read. Both sides
// keep trusting the same CA, so a renewed certificate is trusted by the other side whether its pods
// have rolled yet or not.
func (t *takeover) renew(now time.Time) error {
	t.renewed = map[string]typhatls.KeyPair{}
	sum := sha256.New()
	sum.Write([]byte(t.op.TLS.Bundle[t.tls.CABundle.Key]))
	for _, kp := range []struct {
		secret, cn string
		usage      typhatls.Usage
		pair       typhatls.KeyPair
	}{
		{t.tls.NodeSecret, t.tls.ClientCN, typhatls.Client, t.op.TLS.Node},
		{t.tls.TyphaSecret, t.tls.ServerCN, typhatls.Server, t.op.TLS.Typha},
	} {
		pair := kp.pair
		if due, err := typhatls.RenewalDue(kp.pair.CertPEM, now); err != nil || due {
			var ierr error
			if pair, ierr = typhatls.Issue(t.op.TLS.CA, typhatls.Leaf{CommonName: kp.cn, Usage: kp.usage}, now); ierr != nil {
				return fmt.Errorf("renewing %s/%s with the operator's CA: %w", t.lay.Namespace, kp.secret, ierr)
			}
			t.renewed[kp.secret] = pair
		}
		sum.Write(pair.CertPEM)
	}
	t.tls.Checksum = hex.EncodeToString(sum.Sum(nil))
	return nil
}

// describe prints what the takeover does, before the plan.
func (t *takeover) describe(out io.Writer, in *install.Install, st State, now time.Time) {
	op := t.op
	fmt.Fprintf(out, "takeover of the tigera operator's install (%s; Calico %s, variant %s, IPAM %s):\n", strings.Join(op.Signs, "; "), orDash(op.CalicoVersion), orDash(op.Variant), orDash(op.IPAMType))
	if st.Operator != nil {
		// Taken over already: what stays to watch.
		fmt.Fprintf(out, "  the operator: stopped by calico-pilot (Deployment %s/%s at 0, was %d); to give Calico back to it: kubectl -n %s scale deployment %s --replicas=%d\n",
			st.Operator.Namespace, st.Operator.Name, st.Operator.Replicas, st.Operator.Namespace, st.Operator.Name, st.Operator.Replicas)
		t.describeTLS(out, now)
		return
	}
	if op.Found {
		fmt.Fprintf(out, "  1. the operator is stopped first: Deployment %s/%s scaled from %d to 0 (recorded in %s/%s; to give Calico back to it later: kubectl -n %s scale deployment %s --replicas=%d)\n",
			install.OperatorNamespace, install.OperatorDeployment, op.Replicas, Namespace, StateConfigMap, install.OperatorNamespace, install.OperatorDeployment, op.Replicas)
	}
	fmt.Fprintf(out, "  2. every ownerReference to the Installation is removed (calico-system, the workloads, their RBAC, Secrets and ConfigMaps), the operator's finalizer %s "+
		"on what calico-pilot keeps, and the Installation's finalizers: deleting the Installation then deletes nothing, and it reverts nothing while the operator stays stopped\n", install.FinalizerCNIProtector)
	var names []string
	for _, w := range in.Workloads {
		names = append(names, fmt.Sprintf("%s %s/%s", w.Kind, w.Namespace, w.Name))
	}
	fmt.Fprintf(out, "  3. the workloads are updated in place, one rolling update each, never deleted: %s\n", strings.Join(names, ", "))
	t.describeTLS(out, now)
	for _, p := range op.Pools {
		if !slices.ContainsFunc(in.Pools, func(l calicov1.IPPool) bool { return l.Name == p.Name }) {
			fmt.Fprintf(out, "  IP pool %s (%s), listed by the Installation and deleted by its owner: stays deleted (calico-pilot never creates it)\n", p.Name, p.CIDR)
		}
	}
	for _, l := range in.Pools {
		if l.Labels[install.LabelManagedBy] == "tigera-operator" {
			state := "enabled"
			if l.Spec.Disabled {
				state = "disabled"
			}
			fmt.Fprintf(out, "  IP pool %s (%s, %s): the owner's from now on, as it is; the Installation's pool list is no longer enforced\n", l.Name, l.Spec.CIDR, state)
		}
	}
	for _, c := range op.Components {
		fmt.Fprintf(out, "  %s (%s): taken over in place with the rest, unless the file turns it off (optional components, below)\n", c.Name, strings.Join(c.Objects, ", "))
	}
}

func (t *takeover) describeTLS(out io.Writer, now time.Time) {
	if t.tls == nil {
		return
	}
	tls := t.op.TLS
	caCN, _, caEnd, _ := typhatls.Validity(tls.CA.CertPEM)
	fmt.Fprintf(out, "  Typha TLS: the operator's CA %s (valid until %s) signs calico-node's and Typha's certificates; calico-pilot keeps a copy in %s/%s (from %s/%s) and renews them with it\n",
		caCN, caEnd.UTC().Format(time.DateOnly), t.lay.Namespace, CASecret, install.OperatorNamespace, install.OperatorCASecret)
	for _, kp := range []struct {
		secret string
		pair   typhatls.KeyPair
	}{{t.tls.NodeSecret, tls.Node}, {t.tls.TyphaSecret, tls.Typha}} {
		cn, start, end, err := typhatls.Validity(kp.pair.CertPEM)
		if err != nil {
			fmt.Fprintf(out, "    %s/%s: missing or unreadable (%v): calico-pilot issues it\n", t.lay.Namespace, kp.secret, err)
			continue
		}
		verdict := fmt.Sprintf("kept; renewed by the first apply from %s", typhatls.RenewalTime(start, end).UTC().Format(time.DateOnly))
		if _, due := t.renewed[kp.secret]; due {
			verdict = "renewed now (less than a third of its lifetime is left)"
		}
		fmt.Fprintf(out, "    %s/%s: CN %s, expires %s: %s\n", t.lay.Namespace, kp.secret, cn, end.UTC().Format(time.DateOnly), verdict)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// handOver runs the takeover's steps before anything is rendered in: it stops the operator
// (recorded in the state first, so that an interrupted apply knows), removes the ownerReferences and
// finalizers that would let the operator's resources delete or hold what calico-pilot keeps, keeps
// Typha's TLS material calico-pilot's, and records the state (with the operator's pools in the pool
// intent, which Apply added before the plan). Each step
// can run again: an apply that stops half-way is continued by the next.
func (a *Applier) handOver(ctx context.Context, req Request, w *stateWriter, st *State, t *takeover, in *install.Install, rendered []ObjectRef) error {
	if st.Operator == nil && t.op.Found {
		// Recorded with the release that runs, before the operator stops: an apply killed right
		// after the operator stopped leaves a state from which the next apply decides the same
		// release (not the release of an unrecorded install) and continues the takeover.
		st.Operator = &OperatorState{Namespace: install.OperatorNamespace, Name: install.OperatorDeployment, Replicas: t.op.Replicas}
		if err := w.write(ctx, *st, a.Now()); err != nil {
			return err
		}
	}
	if st.Operator != nil {
		req.operatorReplicas = st.Operator.Replicas
	}
	if err := a.stopOperator(ctx, req); err != nil {
		return err
	}
	if err := a.orphan(ctx, req.Out, t, rendered); err != nil {
		return err
	}
	if t.tls != nil {
		if err := a.keepTyphaTLS(ctx, req.Out, t); err != nil {
			return err
		}
	}
	return w.write(ctx, *st, a.Now())
}

// stopOperator scales the tigera-operator Deployment to 0 and waits until no pod of it runs.
func (a *Applier) stopOperator(ctx context.Context, req Request) error {
	d := &appsv1.Deployment{}
	key := client.ObjectKey{Namespace: install.OperatorNamespace, Name: install.OperatorDeployment}
	if err := a.Client.Get(ctx, key, d); err != nil {
		return client.IgnoreNotFound(err)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 0 {
		if err := a.Client.Patch(ctx, d, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":0}}`)), client.FieldOwner(FieldManager)); err != nil {
			return fmt.Errorf("stopping the tigera operator (scaling Deployment %s to 0): %w", key, err)
		}
		fmt.Fprintf(req.Out, "stopped the tigera operator: Deployment %s scaled to 0\n", key)
	}
	err := wait.PollUntilContextTimeout(ctx, a.Poll/5, req.Timeout, true, func(ctx context.Context) (bool, error) {
		if err := a.Client.Get(ctx, key, d); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return d.Status.ObservedGeneration >= d.Generation && d.Status.Replicas == 0, nil
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted while the tigera operator's pods stop: its Deployment %s is scaled to 0 and the state records it (replicas %d before); "+
			"nothing else of Calico was changed. Run apply again to continue the takeover, or give Calico back to the operator: kubectl -n %s scale deployment %s --replicas=%d",
			key, opReplicas(req), key.Namespace, key.Name, opReplicas(req))
	}
	return fmt.Errorf("the tigera operator's pods did not stop in %s (Deployment %s: %d replica(s) left, scaled to 0 and recorded in the state): %w; "+
		"nothing else of Calico was changed: run apply again to continue", req.Timeout, key, d.Status.Replicas, err)
}

// opReplicas is what the operator ran with before apply stopped it (as the takeover recorded it).
func opReplicas(req Request) int32 {
	if req.operatorReplicas > 0 {
		return req.operatorReplicas
	}
	return 1
}

// orphanKinds are the kinds of the objects the operator creates for Calico (docs/standalone.md).
var orphanKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "Namespace"}, {Version: "v1", Kind: "ServiceAccount"}, {Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"}, {Version: "v1", Kind: "Service"},
	{Group: "apps", Version: "v1", Kind: "DaemonSet"}, {Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}, {Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}, {Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, {Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"},
	{Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver"},
}

// orphan removes the ownerReferences to the Installation from every object of orphanKinds, those to
// the operator's other resources from the objects calico-pilot renders, the operator's cni-protector
// finalizer from what calico-pilot renders, and the Installation's own finalizers. Each object is
// patched with its resourceVersion: a concurrent change fails the apply, which runs again.
func (a *Applier) orphan(ctx context.Context, out io.Writer, t *takeover, rendered []ObjectRef) error {
	n := 0
	for _, gvk := range orphanKinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := a.Client.List(ctx, list); err != nil {
			return fmt.Errorf("listing %s to remove the operator's ownerReferences: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			changed, err := a.orphanOne(ctx, &list.Items[i], rendered)
			if err != nil {
				return err
			}
			if changed {
				n++
			}
		}
	}
	if inst := t.op.Installation; inst != nil && len(inst.GetFinalizers()) > 0 {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(inst.GroupVersionKind())
		if err := a.Client.Get(ctx, client.ObjectKeyFromObject(inst), live); err != nil {
			return client.IgnoreNotFound(err)
		}
		patch := client.MergeFromWithOptions(live.DeepCopy(), client.MergeFromWithOptimisticLock{})
		live.SetFinalizers(nil)
		if err := a.Client.Patch(ctx, live, patch); err != nil {
			return fmt.Errorf("removing the finalizers of Installation %s: %w", inst.GetName(), err)
		}
		fmt.Fprintf(out, "removed the finalizers of Installation %s: deleting it now deletes nothing\n", inst.GetName())
	}
	if n > 0 {
		fmt.Fprintf(out, "removed the tigera operator's ownerReferences and finalizers from %d object(s)\n", n)
	}
	return nil
}

// orphanOne removes from obj what orphan removes; changed says whether it patched obj.
func (a *Applier) orphanOne(ctx context.Context, obj *unstructured.Unstructured, rendered []ObjectRef) (bool, error) {
	ours := slices.ContainsFunc(rendered, func(r ObjectRef) bool {
		return r.Kind == obj.GetKind() && r.Namespace == obj.GetNamespace() && r.Name == obj.GetName()
	})
	var refs []metav1.OwnerReference
	for _, ref := range obj.GetOwnerReferences() {
		operators := strings.HasPrefix(ref.APIVersion, install.OperatorGroup+"/")
		if operators && (ref.Kind == "Installation" || ours) {
			continue
		}
		refs = append(refs, ref)
	}
	fins := obj.GetFinalizers()
	if ours {
		fins = slices.DeleteFunc(slices.Clone(fins), func(f string) bool { return f == install.FinalizerCNIProtector })
	}
	if len(refs) == len(obj.GetOwnerReferences()) && len(fins) == len(obj.GetFinalizers()) {
		return false, nil
	}
	patch := client.MergeFromWithOptions(obj.DeepCopy(), client.MergeFromWithOptimisticLock{})
	obj.SetOwnerReferences(refs)
	obj.SetFinalizers(fins)
	if err := a.Client.Patch(ctx, obj, patch); err != nil {
		return false, fmt.Errorf("removing the tigera operator's ownerReferences from %s %s: %w", obj.GetKind(), client.ObjectKeyFromObject(obj), err)
	}
	return true, nil
}

// keepTyphaTLS copies the operator's CA into calico-pilot's Secret and writes the key pairs renew
// issued.
func (a *Applier) keepTyphaTLS(ctx context.Context, out io.Writer, t *takeover) error {
	if err := a.writeKeyPair(ctx, t.lay.Namespace, CASecret, t.op.TLS.CA); err != nil {
		return err
	}
	for _, secret := range []string{t.tls.NodeSecret, t.tls.TyphaSecret} {
		pair, ok := t.renewed[secret]
		if !ok {
			continue
		}
		if err := a.writeKeyPair(ctx, t.lay.Namespace, secret, pair); err != nil {
			return err
		}
		cn, _, end, _ := typhatls.Validity(pair.CertPEM)
		fmt.Fprintf(out, "renewed %s/%s (CN %s) with the CA, valid until %s\n", t.lay.Namespace, secret, cn, end.UTC().Format(time.DateOnly))
	}
	return nil
}

// writeKeyPair writes a kubernetes.io/tls Secret under calico-pilot's field manager.
func (a *Applier) writeKeyPair(ctx context.Context, ns, name string, pair typhatls.KeyPair) error {
	// No type: the operator's Secrets keep theirs (a Secret's type cannot change); the keys are those
	// of a kubernetes.io/tls Secret.
	sec := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"data": map[string]any{
			corev1.TLSCertKey:       base64.StdEncoding.EncodeToString(pair.CertPEM),
			corev1.TLSPrivateKeyKey: base64.StdEncoding.EncodeToString(pair.KeyPEM),
		},
	}}
	if err := a.ssa(ctx, sec, false); err != nil {
		return fmt.Errorf("writing Secret %s/%s: %w", ns, name, err)
	}
	return nil
}

// operatorPools adds to the pool intent the pools the Installation lists that are gone (deleted by
// their owner): never created again. The operator's live pools are adopted as they run when the
// render names them (pools.Decide, pools.AdoptAsTheyRun) and are never written otherwise.
func operatorPools(records []calicov1alpha1.IPPoolRecord, in *install.Install, op *install.Operator, now time.Time) []calicov1alpha1.IPPoolRecord {
	for _, p := range op.Pools {
		recorded := slices.ContainsFunc(records, func(r calicov1alpha1.IPPoolRecord) bool { return r.Name == p.Name })
		if recorded || slices.ContainsFunc(in.Pools, func(l calicov1.IPPool) bool { return l.Name == p.Name }) {
			continue
		}
		records = append(records, calicov1alpha1.IPPoolRecord{Name: p.Name, CIDR: p.CIDR, Created: metav1.NewTime(now.UTC().Truncate(time.Second)), Adopted: true, OwnerChanges: []string{"deleted"}})
	}
	slices.SortFunc(records, func(a, b calicov1alpha1.IPPoolRecord) int { return strings.Compare(a.Name, b.Name) })
	return records
}
