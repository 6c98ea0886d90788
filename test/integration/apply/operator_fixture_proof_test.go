package apply

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/typhatls"
)

// measuredObjects are the 77 objects the operator created in the measured cluster, one line each:
// "Kind namespace/name | owner | labels | finalizers" ("-" for none; cluster-scoped objects have no
// namespace). The IPPool, the FelixConfiguration and the TigeraStatus objects have no owner.
var measuredObjects = []string{
	"Namespace calico-system | Installation | name=calico-system,pod-security.kubernetes.io/enforce=privileged,pod-security.kubernetes.io/enforce-version=latest | -",
	"ServiceAccount calico-system/calico-apiserver | APIServer | - | -",
	"ServiceAccount calico-system/calico-cni-plugin | Installation | - | tigera.io/cni-protector",
	"ServiceAccount calico-system/calico-kube-controllers | Installation | - | -",
	"ServiceAccount calico-system/calico-node | Installation | - | tigera.io/cni-protector",
	"ServiceAccount calico-system/calico-typha | Installation | - | -",
	"ServiceAccount calico-system/csi-node-driver | Installation | - | -",
	"ServiceAccount calico-system/goldmane | Goldmane | - | -",
	"ServiceAccount calico-system/whisker | Whisker | - | -",
	"ClusterRole calico-cni-plugin | Installation | - | tigera.io/cni-protector",
	"ClusterRole calico-crds | APIServer | - | -",
	"ClusterRole calico-extension-apiserver-auth-access | APIServer | - | -",
	"ClusterRole calico-kube-controllers | Installation | - | -",
	"ClusterRole calico-node | Installation | - | tigera.io/cni-protector",
	"ClusterRole calico-tier-getter | APIServer | - | -",
	"ClusterRole calico-tiered-policy-passthrough | APIServer | - | -",
	"ClusterRole calico-typha | Installation | - | -",
	"ClusterRole calico-webhook-reader | APIServer | - | -",
	"ClusterRoleBinding calico-apiserver-access-calico-crds | APIServer | - | -",
	"ClusterRoleBinding calico-apiserver-delegate-auth | APIServer | - | -",
	"ClusterRoleBinding calico-apiserver-webhook-reader | APIServer | - | -",
	"ClusterRoleBinding calico-cni-plugin | Installation | - | tigera.io/cni-protector",
	"ClusterRoleBinding calico-extension-apiserver-auth-access | APIServer | - | -",
	"ClusterRoleBinding calico-kube-controllers | Installation | - | -",
	"ClusterRoleBinding calico-node | Installation | - | tigera.io/cni-protector",
	"ClusterRoleBinding calico-tier-getter | APIServer | - | -",
	"ClusterRoleBinding calico-tiered-policy-passthrough | APIServer | - | -",
	"ClusterRoleBinding calico-typha | Installation | - | -",
	"Role calico-system/goldmane | Goldmane | - | -",
	"RoleBinding calico-system/goldmane | Goldmane | - | -",
	"RoleBinding calico-system/tigera-operator-secrets | Installation | - | -",
	"RoleBinding kube-system/calico-apiserver-auth-reader | APIServer | - | -",
	"Secret calico-system/calico-apiserver-certs | APIServer | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret calico-system/goldmane-key-pair | Goldmane | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret calico-system/node-certs | Installation | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret calico-system/typha-certs | Installation | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret calico-system/typha-certs-noncluster-host | Installation | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret calico-system/whisker-backend-key-pair | Whisker | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret tigera-operator/calico-apiserver-certs | APIServer | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret tigera-operator/goldmane-key-pair | Goldmane | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret tigera-operator/node-certs | Installation | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret tigera-operator/tigera-ca-private | Installation | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret tigera-operator/typha-certs | Installation | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret tigera-operator/typha-certs-noncluster-host | Installation | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"Secret tigera-operator/whisker-backend-key-pair | Whisker | certificates.operator.tigera.io/signer=tigera-operator-signer | -",
	"ConfigMap calico-system/active-operator | Installation | - | -",
	"ConfigMap calico-system/cni-config | Installation | - | -",
	"ConfigMap calico-system/goldmane | Goldmane | - | -",
	"ConfigMap calico-system/goldmane-ca-bundle | Goldmane | - | -",
	"ConfigMap calico-system/tigera-ca-bundle | Installation | - | -",
	"ConfigMap calico-system/whisker-ca-bundle | Whisker | - | -",
	"ConfigMap calico-system/whisker-nginx-config | Whisker | - | -",
	"Service calico-system/calico-api | APIServer | k8s-app=calico-api | -",
	"Service calico-system/calico-typha | Installation | k8s-app=calico-typha | -",
	"Service calico-system/goldmane | Goldmane | - | -",
	"Service calico-system/whisker | Whisker | - | -",
	"DaemonSet calico-system/calico-node | Installation | - | -",
	"DaemonSet calico-system/csi-node-driver | Installation | - | -",
	"Deployment calico-system/calico-apiserver | APIServer | apiserver=true,app.kubernetes.io/name=calico-apiserver,k8s-app=calico-apiserver | -",
	"Deployment calico-system/calico-kube-controllers | Installation | app.kubernetes.io/name=calico-kube-controllers,k8s-app=calico-kube-controllers | -",
	"Deployment calico-system/calico-typha | Installation | app.kubernetes.io/name=calico-typha,k8s-app=calico-typha | -",
	"Deployment calico-system/goldmane | Goldmane | app.kubernetes.io/name=goldmane,k8s-app=goldmane | -",
	"Deployment calico-system/whisker | Whisker | app.kubernetes.io/name=whisker,k8s-app=whisker | -",
	"PodDisruptionBudget calico-system/calico-apiserver | APIServer | - | -",
	"PodDisruptionBudget calico-system/calico-typha | Installation | - | -",
	"NetworkPolicy calico-system/allow-apiserver | APIServer | - | -",
	"NetworkPolicy calico-system/goldmane | Goldmane | - | -",
	"NetworkPolicy calico-system/whisker | Whisker | - | -",
	"APIService v3.projectcalico.org | APIServer | - | -",
	"CSIDriver csi.tigera.io | Installation | - | -",
	"IPPool default-ipv4-ippool | - | app.kubernetes.io/managed-by=tigera-operator | -",
	"FelixConfiguration default | - | - | -",
	"TigeraStatus apiserver | - | - | -",
	"TigeraStatus calico | - | - | -",
	"TigeraStatus goldmane | - | - | -",
	"TigeraStatus ippools | - | - | -",
	"TigeraStatus whisker | - | - | -",
}

// operatorKinds are the kinds of the operator's objects, as the fixture's proof lists them.
var operatorKinds = []listKind{
	{"v1", "NamespaceList"}, {"v1", "ServiceAccountList"}, {"v1", "SecretList"}, {"v1", "ConfigMapList"}, {"v1", "ServiceList"},
	{"rbac.authorization.k8s.io/v1", "ClusterRoleList"}, {"rbac.authorization.k8s.io/v1", "ClusterRoleBindingList"},
	{"rbac.authorization.k8s.io/v1", "RoleList"}, {"rbac.authorization.k8s.io/v1", "RoleBindingList"},
	{"apps/v1", "DaemonSetList"}, {"apps/v1", "DeploymentList"}, {"policy/v1", "PodDisruptionBudgetList"},
	{"networking.k8s.io/v1", "NetworkPolicyList"}, {"apiregistration.k8s.io/v1", "APIServiceList"}, {"storage.k8s.io/v1", "CSIDriverList"},
	{"crd.projectcalico.org/v1", "IPPoolList"}, {"crd.projectcalico.org/v1", "FelixConfigurationList"}, {"operator.tigera.io/v1", "TigeraStatusList"},
}

// operatorObjects reads the operator's objects back from the cluster in measuredObjects' format: every
// object of operatorKinds owned by an operator.tigera.io custom resource, and the unowned pools,
// FelixConfigurations and TigeraStatus objects. An ownerReference that is not the custom resource's
// (another UID, not controller, not blocking its owner's deletion) is shown as such.
func operatorObjects(t *testing.T, cl *cluster, in *operatorInstall) []string {
	t.Helper()
	var out []string
	for _, lk := range operatorKinds {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(lk.apiVersion)
		list.SetKind(lk.kind)
		if err := cl.c.List(context.Background(), list); err != nil {
			t.Fatalf("listing %s: %v", lk.kind, err)
		}
		for _, o := range list.Items {
			var owners []string
			for _, r := range o.GetOwnerReferences() {
				if r.APIVersion != "operator.tigera.io/v1" {
					continue
				}
				s := r.Kind
				if r.Name != "default" || r.UID != in.OwnerUIDs[r.Kind] || r.Controller == nil || !*r.Controller || r.BlockOwnerDeletion == nil || !*r.BlockOwnerDeletion {
					s = fmt.Sprintf("%s (name %s, uid %s, controller %v, blockOwnerDeletion %v)", r.Kind, r.Name, r.UID, r.Controller, r.BlockOwnerDeletion)
				}
				owners = append(owners, s)
			}
			unowned := lk.kind == "IPPoolList" || lk.kind == "FelixConfigurationList" || lk.kind == "TigeraStatusList"
			if len(owners) == 0 && !unowned {
				continue
			}
			var labels []string
			for _, k := range slices.Sorted(maps.Keys(o.GetLabels())) {
				// The API server labels every namespace with its name; the measured table leaves it out.
				if k != "kubernetes.io/metadata.name" {
					labels = append(labels, k+"="+o.GetLabels()[k])
				}
			}
			out = append(out, strings.Join([]string{objectKey(o.GetKind(), o.GetNamespace(), o.GetName()), orDash(owners), orDash(labels), orDash(o.GetFinalizers())}, " | "))
		}
	}
	return out
}

func orDash(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// countsOf counts lines of measuredObjects' format by namespace ("cluster" for cluster-scoped) and kind.
func countsOf(lines []string) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, l := range lines {
		key, _, _ := strings.Cut(l, " | ")
		kind, name, _ := strings.Cut(key, " ")
		ns := "cluster"
		if before, _, ok := strings.Cut(name, "/"); ok {
			ns = before
		}
		if out[ns] == nil {
			out[ns] = map[string]int{}
		}
		out[ns][kind]++
	}
	return out
}

// without is lines without those of the given owners and of the given object keys.
func without(lines []string, owners []string, keys ...string) []string {
	return slices.DeleteFunc(slices.Clone(lines), func(l string) bool {
		parts := strings.Split(l, " | ")
		return slices.Contains(owners, parts[1]) || slices.Contains(keys, parts[0])
	})
}

func get(t *testing.T, cl *cluster, ns, name string, obj client.Object) {
	t.Helper()
	if err := cl.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		t.Fatal(err)
	}
}

func containerOf(t *testing.T, spec corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %s", name)
	return corev1.Container{}
}

// envLines are a container's variables as NAME=value (NAME=<fieldRef PATH>, NAME=<ConfigMap NAME KEY>).
func envLines(c corev1.Container) []string {
	var out []string
	for _, e := range c.Env {
		v := e.Value
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			v = "<fieldRef " + e.ValueFrom.FieldRef.FieldPath + ">"
		case e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil:
			v = "<ConfigMap " + e.ValueFrom.ConfigMapKeyRef.Name + " " + e.ValueFrom.ConfigMapKeyRef.Key + ">"
		}
		out = append(out, e.Name+"="+v)
	}
	return out
}

func mountLines(c corev1.Container) []string {
	var out []string
	for _, m := range c.VolumeMounts {
		s := m.Name + " " + m.MountPath
		if m.SubPath != "" {
			s += " subPath " + m.SubPath
		}
		if m.ReadOnly {
			s += " ro"
		}
		if m.MountPropagation != nil {
			s += " " + string(*m.MountPropagation)
		}
		out = append(out, s)
	}
	return out
}

func volumeLines(spec corev1.PodSpec) []string {
	var out []string
	for _, v := range spec.Volumes {
		switch {
		case v.HostPath != nil:
			s := v.Name + " hostPath " + v.HostPath.Path
			if v.HostPath.Type != nil && *v.HostPath.Type != "" {
				s += " (" + string(*v.HostPath.Type) + ")"
			}
			out = append(out, s)
		case v.Secret != nil:
			out = append(out, v.Name+" Secret "+v.Secret.SecretName)
		case v.ConfigMap != nil:
			out = append(out, v.Name+" ConfigMap "+v.ConfigMap.Name)
		default:
			out = append(out, v.Name+" other")
		}
	}
	return out
}

// TestOperatorFixtureIsAsMeasured is the operator fixture's own proof: read back from the API server,
// its objects are the measured cluster's (names, owners with the custom resources' UIDs, labels,
// finalizers, counts per namespace and kind), its workloads have the measured selectors, labels,
// containers, environment and volumes, its TLS material is consistent (and typhaTLSConsistent finds
// it broken when node-certs is gone), and the options change what they say.
func TestOperatorFixtureIsAsMeasured(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	in := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()

	got := operatorObjects(t, cl, in)
	if d := cmp.Diff(sortedCopy(measuredObjects), sortedCopy(got)); d != "" {
		t.Errorf("the operator's objects (-measured +fixture):\n%s", d)
	}
	wantCounts := map[string]map[string]int{
		"calico-system":   {"ServiceAccount": 8, "Secret": 6, "ConfigMap": 7, "Deployment": 5, "DaemonSet": 2, "Service": 4, "NetworkPolicy": 3, "PodDisruptionBudget": 2, "RoleBinding": 2, "Role": 1},
		"tigera-operator": {"Secret": 7},
		"kube-system":     {"RoleBinding": 1},
		"cluster":         {"ClusterRoleBinding": 10, "ClusterRole": 9, "TigeraStatus": 5, "Namespace": 1, "APIService": 1, "CSIDriver": 1, "IPPool": 1, "FelixConfiguration": 1},
	}
	if d := cmp.Diff(wantCounts, countsOf(got)); d != "" || len(got) != 77 {
		t.Errorf("%d objects; counts per namespace and kind (-measured +fixture):\n%s", len(got), d)
	}
	// Installation and APIServer alone give 57 of them.
	if n := len(without(measuredObjects, []string{"Goldmane", "Whisker"}, "TigeraStatus goldmane", "TigeraStatus whisker")); n != 57 {
		t.Errorf("the measured objects without Goldmane and Whisker are %d, the facts say 57", n)
	}

	// The Installation's objects, as ownerRefsToInstallation lists them.
	var installationOwned []string
	for _, l := range measuredObjects {
		if parts := strings.Split(l, " | "); parts[1] == "Installation" {
			installationOwned = append(installationOwned, parts[0])
		}
	}
	if d := cmp.Diff(sortedCopy(installationOwned), in.ownerRefsToInstallation(t, cl)); d != "" || len(installationOwned) != 32 {
		t.Errorf("ownerRefsToInstallation (%d measured; -measured +got):\n%s", len(installationOwned), d)
	}
	// Every object created is recorded: the 77, the four custom resources, the manifest's 7 objects
	// and 5 operator CRDs (Calico's CRDs are installed by the test environment, not recorded).
	if n := len(in.UIDs); n != 77+4+7+5 {
		t.Errorf("%d UIDs recorded, want %d", n, 77+4+7+5)
	}
	if d := cmp.Diff([]string{
		"DaemonSet calico-system/calico-node", "DaemonSet calico-system/csi-node-driver",
		"Deployment calico-system/calico-apiserver", "Deployment calico-system/calico-kube-controllers", "Deployment calico-system/calico-typha",
		"Deployment calico-system/goldmane", "Deployment calico-system/whisker", "Deployment tigera-operator/tigera-operator",
	}, slices.Sorted(maps.Keys(in.Workloads))); d != "" {
		t.Errorf("workloads recorded (-want +got):\n%s", d)
	}

	checkWorkloads(t, cl)
	checkCalicoNode(t, cl, true)
	checkCustomResources(t, cl, operatorOptions{})
	checkTLS(t, cl, in)
	checkDiscovery(t, cl)

	// The suite's controllers report the operator's workloads rolled out.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		var ds appsv1.DaemonSet
		var d appsv1.Deployment
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: "calico-node"}, &ds); err != nil {
			return false, err
		}
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: "calico-apiserver"}, &d); err != nil {
			return false, err
		}
		return ds.Status.ObservedGeneration == ds.Generation && ds.Status.NumberAvailable == 3 && d.Status.AvailableReplicas == 2, nil
	})
	if err != nil {
		t.Errorf("calico-node and calico-apiserver are not reported rolled out: %v", err)
	}

	// The checks a takeover test calls: untouched, they pass.
	if err := in.uidsKept(t, cl); err != nil {
		t.Errorf("uidsKept on the untouched fixture: %v", err)
	}
	if err := in.typhaTLSConsistent(t, cl); err != nil {
		t.Errorf("typhaTLSConsistent on the untouched fixture: %v", err)
	}
	// Without node-certs calico-node cannot read its key pair.
	if err := cl.c.Delete(ctx, &corev1.Secret{ObjectMeta: meta("calico-system", "node-certs", nil)}); err != nil {
		t.Fatal(err)
	}
	want := `calico-node: FELIX_TYPHACERTFILE=/node-certs/tls.crt: Secret calico-system/node-certs: secrets "node-certs" not found
calico-node: FELIX_TYPHAKEYFILE=/node-certs/tls.key: Secret calico-system/node-certs: secrets "node-certs" not found`
	if err := in.typhaTLSConsistent(t, cl); err == nil || err.Error() != want {
		t.Errorf("typhaTLSConsistent without node-certs: %v, want:\n%s", err, want)
	}
	// A workload deleted and created again, or gone, is found.
	var typha appsv1.Deployment
	get(t, cl, "calico-system", "calico-typha", &typha)
	if err := cl.c.Delete(ctx, &typha); err != nil {
		t.Fatal(err)
	}
	if err := cl.c.Delete(ctx, &appsv1.DaemonSet{ObjectMeta: meta("calico-system", "calico-node", nil)}); err != nil {
		t.Fatal(err)
	}
	typha.ResourceVersion, typha.UID = "", ""
	if err := cl.c.Create(ctx, &typha); err != nil {
		t.Fatal(err)
	}
	want = "DaemonSet calico-system/calico-node is gone\nDeployment calico-system/calico-typha was deleted and created again (uid " +
		string(typha.UID) + ", was " + string(in.Workloads["Deployment calico-system/calico-typha"]) + ")"
	if err := in.uidsKept(t, cl); err == nil || err.Error() != want {
		t.Errorf("uidsKept after calico-node's deletion and calico-typha's re-creation: %v, want:\n%s", err, want)
	}
}

// TestOperatorFixtureOptions: without Goldmane and Whisker the fixture has the 57 objects of the
// Installation and the APIServer less the deleted pool, calico-node lacks the flow-log settings, and
// the Installation says the variant and Windows dataplane asked; a disabled pool is disabled.
func TestOperatorFixtureOptions(t *testing.T) {
	t.Run("without goldmane and whisker, pool deleted, enterprise, windows", func(t *testing.T) {
		cl := newCluster(t)
		opts := operatorOptions{WithoutGoldmaneWhisker: true, PoolDeleted: true, Variant: "TigeraSecureEnterprise", WindowsDataplane: "HNS"}
		in := cl.operatorInstall(opts)
		want := without(measuredObjects, []string{"Goldmane", "Whisker"}, "TigeraStatus goldmane", "TigeraStatus whisker", "IPPool default-ipv4-ippool")
		if d := cmp.Diff(sortedCopy(want), sortedCopy(operatorObjects(t, cl, in))); d != "" || len(want) != 56 {
			t.Errorf("the operator's objects (-want +fixture):\n%s", d)
		}
		checkCalicoNode(t, cl, false)
		checkCustomResources(t, cl, opts)
		if err := in.typhaTLSConsistent(t, cl); err != nil {
			t.Error(err)
		}
	})
	t.Run("pool disabled", func(t *testing.T) {
		cl := newCluster(t)
		cl.operatorInstall(operatorOptions{PoolDisabled: true})
		if !cl.pool("default-ipv4-ippool").Spec.Disabled {
			t.Error("the pool is enabled")
		}
	})
}

func sortedCopy(s []string) []string { return slices.Sorted(slices.Values(s)) }

// checkWorkloads compares the workloads' labels, selectors, pod labels and replicas or strategy with
// the measured ones.
func checkWorkloads(t *testing.T, cl *cluster) {
	t.Helper()
	labels := func(m map[string]string) string {
		var out []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, k+"="+m[k])
		}
		return orDash(out)
	}
	var got []string
	for _, name := range []string{"calico-node", "csi-node-driver"} {
		var ds appsv1.DaemonSet
		get(t, cl, "calico-system", name, &ds)
		u := ds.Spec.UpdateStrategy.RollingUpdate
		got = append(got, fmt.Sprintf("DaemonSet %s | %s | %s | %s | %s maxUnavailable %s maxSurge %s", name, labels(ds.Labels), labels(ds.Spec.Selector.MatchLabels),
			labels(ds.Spec.Template.Labels), ds.Spec.UpdateStrategy.Type, u.MaxUnavailable, u.MaxSurge))
	}
	for _, name := range []string{"calico-typha", "calico-kube-controllers", "calico-apiserver", "goldmane", "whisker"} {
		var d appsv1.Deployment
		get(t, cl, "calico-system", name, &d)
		s := fmt.Sprintf("Deployment %s | %s | %s | %s | %d %s", name, labels(d.Labels), labels(d.Spec.Selector.MatchLabels), labels(d.Spec.Template.Labels),
			*d.Spec.Replicas, d.Spec.Strategy.Type)
		if r := d.Spec.Strategy.RollingUpdate; r != nil {
			s += fmt.Sprintf(" maxUnavailable %s maxSurge %s", r.MaxUnavailable, r.MaxSurge)
		}
		if d.Spec.RevisionHistoryLimit != nil {
			s += fmt.Sprintf(" revisionHistoryLimit %d", *d.Spec.RevisionHistoryLimit)
		}
		got = append(got, s)
	}
	want := []string{
		"DaemonSet calico-node | - | k8s-app=calico-node | app.kubernetes.io/name=calico-node,k8s-app=calico-node | RollingUpdate maxUnavailable 1 maxSurge 0",
		"DaemonSet csi-node-driver | - | k8s-app=csi-node-driver | app.kubernetes.io/name=csi-node-driver,k8s-app=csi-node-driver,name=csi-node-driver | RollingUpdate maxUnavailable 1 maxSurge 0",
		"Deployment calico-typha | app.kubernetes.io/name=calico-typha,k8s-app=calico-typha | k8s-app=calico-typha | app.kubernetes.io/name=calico-typha,k8s-app=calico-typha | 1 RollingUpdate maxUnavailable 1 maxSurge 100% revisionHistoryLimit 2",
		"Deployment calico-kube-controllers | app.kubernetes.io/name=calico-kube-controllers,k8s-app=calico-kube-controllers | k8s-app=calico-kube-controllers | app.kubernetes.io/name=calico-kube-controllers,k8s-app=calico-kube-controllers | 1 Recreate revisionHistoryLimit 10",
		"Deployment calico-apiserver | apiserver=true,app.kubernetes.io/name=calico-apiserver,k8s-app=calico-apiserver | apiserver=true | apiserver=true,app.kubernetes.io/name=calico-apiserver,k8s-app=calico-apiserver | 2 RollingUpdate maxUnavailable 25% maxSurge 25% revisionHistoryLimit 10",
		"Deployment goldmane | app.kubernetes.io/name=goldmane,k8s-app=goldmane | k8s-app=goldmane | app.kubernetes.io/name=goldmane,k8s-app=goldmane | 1 Recreate revisionHistoryLimit 10",
		"Deployment whisker | app.kubernetes.io/name=whisker,k8s-app=whisker | k8s-app=whisker | app.kubernetes.io/name=whisker,k8s-app=whisker | 1 Recreate revisionHistoryLimit 10",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("workloads (-measured +fixture):\n%s", d)
	}

	var svc corev1.Service
	get(t, cl, "calico-system", "calico-typha", &svc)
	if p := svc.Spec.Ports; len(p) != 1 || p[0].Name != "calico-typha" || p[0].Port != 5473 || p[0].TargetPort.String() != "calico-typha" ||
		svc.Spec.Selector["k8s-app"] != "calico-typha" || svc.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("Service calico-typha: %+v", svc.Spec)
	}

	var typha appsv1.Deployment
	get(t, cl, "calico-system", "calico-typha", &typha)
	c := containerOf(t, typha.Spec.Template.Spec, "calico-typha")
	if d := cmp.Diff([]string{
		"TYPHA_LOGSEVERITYSCREEN=info", "TYPHA_LOGFILEPATH=none", "TYPHA_LOGSEVERITYSYS=none", "TYPHA_CONNECTIONREBALANCINGMODE=kubernetes",
		"TYPHA_DATASTORETYPE=kubernetes", "TYPHA_HEALTHENABLED=true", "TYPHA_HEALTHPORT=9098", "TYPHA_K8SNAMESPACE=calico-system",
		"TYPHA_CAFILE=/etc/pki/tls/certs/tigera-ca-bundle.crt", "TYPHA_SERVERCERTFILE=/typha-certs/tls.crt", "TYPHA_SERVERKEYFILE=/typha-certs/tls.key",
		"TYPHA_SHUTDOWNTIMEOUTSECS=300", "TYPHA_CLIENTCN=typha-client", "KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443",
	}, envLines(c)); d != "" {
		t.Errorf("calico-typha env (-measured +fixture):\n%s", d)
	}
	if d := cmp.Diff([]string{"tigera-ca-bundle /etc/pki/tls/certs ro", "tigera-ca-bundle /etc/pki/tls/cert.pem subPath ca-bundle.crt ro", "typha-certs /typha-certs ro"},
		mountLines(c)); d != "" || c.Image != "quay.io/calico/typha:v3.31.7" || !typha.Spec.Template.Spec.HostNetwork || typha.Spec.Template.Spec.ServiceAccountName != "calico-typha" {
		t.Errorf("calico-typha %s, hostNetwork %v, mounts (-measured +fixture):\n%s", c.Image, typha.Spec.Template.Spec.HostNetwork, d)
	}

	var kc appsv1.Deployment
	get(t, cl, "calico-system", "calico-kube-controllers", &kc)
	c = containerOf(t, kc.Spec.Template.Spec, "calico-kube-controllers")
	if d := cmp.Diff([]string{
		"KUBE_CONTROLLERS_CONFIG_NAME=default", "DATASTORE_TYPE=kubernetes", "ENABLED_CONTROLLERS=node,loadbalancer",
		"DISABLE_KUBE_CONTROLLERS_CONFIG_API=false", "KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443",
		"CA_CRT_PATH=/etc/pki/tls/certs/tigera-ca-bundle.crt",
	}, envLines(c)); d != "" || c.Image != "quay.io/calico/kube-controllers:v3.31.7" {
		t.Errorf("calico-kube-controllers %s env (-measured +fixture):\n%s", c.Image, d)
	}

	var op appsv1.Deployment
	get(t, cl, "tigera-operator", "tigera-operator", &op)
	c = containerOf(t, op.Spec.Template.Spec, "tigera-operator")
	if *op.Spec.Replicas != 1 || c.Image != "quay.io/tigera/operator:v1.40.15" || op.Spec.Selector.MatchLabels["name"] != "tigera-operator" ||
		op.Spec.Template.Spec.DNSPolicy != corev1.DNSClusterFirstWithHostNet ||
		!slices.Equal(envLines(c), []string{"WATCH_NAMESPACE=", "POD_NAME=<fieldRef metadata.name>", "OPERATOR_NAME=tigera-operator", "TIGERA_OPERATOR_INIT_IMAGE_VERSION=v1.40.15"}) {
		t.Errorf("Deployment tigera-operator: replicas %d, image %s, selector %v, env %v", *op.Spec.Replicas, c.Image, op.Spec.Selector.MatchLabels, envLines(c))
	}
}

// checkCalicoNode compares calico-node's containers, environment and volumes with the measured ones
// (with or without Goldmane's flow-log settings).
func checkCalicoNode(t *testing.T, cl *cluster, goldmane bool) {
	t.Helper()
	var ds appsv1.DaemonSet
	get(t, cl, "calico-system", "calico-node", &ds)
	spec := ds.Spec.Template.Spec
	var images []string
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		images = append(images, c.Name+" "+c.Image)
	}
	if d := cmp.Diff([]string{
		"flexvol-driver quay.io/calico/pod2daemon-flexvol:v3.31.7", "ebpf-bootstrap quay.io/calico/node:v3.31.7",
		"install-cni quay.io/calico/cni:v3.31.7", "calico-node quay.io/calico/node:v3.31.7",
	}, images); d != "" {
		t.Errorf("calico-node's containers (-measured +fixture):\n%s", d)
	}
	want := []string{
		"DATASTORE_TYPE=kubernetes", "WAIT_FOR_DATASTORE=true", "CLUSTER_TYPE=k8s,operator,bgp", "CALICO_DISABLE_FILE_LOGGING=false",
		"FELIX_DEFAULTENDPOINTTOHOSTACTION=ACCEPT", "FELIX_HEALTHENABLED=true", "FELIX_HEALTHPORT=9099",
		"NODENAME=<fieldRef spec.nodeName>", "NAMESPACE=<fieldRef metadata.namespace>",
		"FELIX_TYPHAK8SNAMESPACE=calico-system", "FELIX_TYPHAK8SSERVICENAME=calico-typha",
		"FELIX_TYPHACAFILE=/etc/pki/tls/certs/tigera-ca-bundle.crt", "FELIX_TYPHACERTFILE=/node-certs/tls.crt",
		"FELIX_TYPHAKEYFILE=/node-certs/tls.key", "FELIX_TYPHACN=typha-server", "NO_DEFAULT_POOLS=true",
	}
	if goldmane {
		want = append(want, "FELIX_FLOWLOGSGOLDMANESERVER=goldmane.calico-system.svc:7443", "FELIX_FLOWLOGSFLUSHINTERVAL=15")
	}
	want = append(want, "CALICO_MANAGE_CNI=true", "CALICO_NETWORKING_BACKEND=bird", "IP=autodetect", "IP_AUTODETECTION_METHOD=first-found",
		"IP6=none", "FELIX_IPV6SUPPORT=false", "KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443")
	if d := cmp.Diff(want, envLines(containerOf(t, spec, "calico-node"))); d != "" {
		t.Errorf("calico-node env (-measured +fixture):\n%s", d)
	}
	if d := cmp.Diff([]string{
		"CNI_CONF_NAME=10-calico.conflist", "SLEEP=false", "CNI_NET_DIR=/etc/cni/net.d", "CNI_NETWORK_CONFIG=<ConfigMap cni-config config>",
		"KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443",
	}, envLines(containerOf(t, spec, "install-cni"))); d != "" {
		t.Errorf("install-cni env (-measured +fixture):\n%s", d)
	}
	if d := cmp.Diff([]string{
		"bpffs hostPath /sys/fs/bpf (Directory)", "cni-bin-dir hostPath /opt/cni/bin (DirectoryOrCreate)", "cni-log-dir hostPath /var/log/calico/cni",
		"cni-net-dir hostPath /etc/cni/net.d", "flexvol-driver-host hostPath /usr/libexec/kubernetes/kubelet-plugins/volume/exec/nodeagent~uds (DirectoryOrCreate)",
		"lib-modules hostPath /lib/modules", "node-certs Secret node-certs", "nodeproc hostPath /proc", "policysync hostPath /var/run/nodeagent (DirectoryOrCreate)",
		"sys-fs hostPath /sys/fs (DirectoryOrCreate)", "sys-kernel-security hostPath /sys/kernel/security", "tigera-ca-bundle ConfigMap tigera-ca-bundle",
		"var-lib-calico hostPath /var/lib/calico (DirectoryOrCreate)", "var-run-calico hostPath /var/run/calico (DirectoryOrCreate)",
		"xtables-lock hostPath /run/xtables.lock (FileOrCreate)",
	}, volumeLines(spec)); d != "" {
		t.Errorf("calico-node volumes (-measured +fixture):\n%s", d)
	}
	if d := cmp.Diff([]string{
		"bpffs /sys/fs/bpf", "cni-log-dir /var/log/calico/cni", "cni-net-dir /host/etc/cni/net.d", "lib-modules /lib/modules ro",
		"node-certs /node-certs ro", "policysync /var/run/nodeagent", "sys-kernel-security /sys/kernel/security ro",
		"tigera-ca-bundle /etc/pki/tls/certs ro", "tigera-ca-bundle /etc/pki/tls/cert.pem subPath ca-bundle.crt ro",
		"var-lib-calico /var/lib/calico", "var-run-calico /var/run/calico", "xtables-lock /run/xtables.lock",
	}, mountLines(containerOf(t, spec, "calico-node"))); d != "" {
		t.Errorf("calico-node mounts (-measured +fixture):\n%s", d)
	}
	if d := cmp.Diff([]string{"nodeproc /nodeproc ro", "sys-fs /sys/fs Bidirectional", "var-run-calico /var/run/calico Bidirectional"},
		mountLines(containerOf(t, spec, "ebpf-bootstrap"))); d != "" {
		t.Errorf("ebpf-bootstrap mounts (-measured +fixture):\n%s", d)
	}
	if spec.ServiceAccountName != "calico-node" || !spec.HostNetwork || spec.DNSPolicy != corev1.DNSClusterFirstWithHostNet ||
		spec.PriorityClassName != "system-node-critical" || *spec.TerminationGracePeriodSeconds != 5 || spec.NodeSelector["kubernetes.io/os"] != "linux" {
		t.Errorf("calico-node pod: sa %s, hostNetwork %v, dnsPolicy %s, priority %s, grace %d, nodeSelector %v", spec.ServiceAccountName, spec.HostNetwork,
			spec.DNSPolicy, spec.PriorityClassName, *spec.TerminationGracePeriodSeconds, spec.NodeSelector)
	}
	var hostAliases []string
	for _, a := range spec.HostAliases {
		hostAliases = append(hostAliases, a.IP+" "+strings.Join(a.Hostnames, ","))
	}
	var wantAliases []string
	if goldmane {
		var svc corev1.Service
		get(t, cl, "calico-system", "goldmane", &svc)
		wantAliases = []string{svc.Spec.ClusterIP + " goldmane.calico-system.svc"}
	}
	if !slices.Equal(hostAliases, wantAliases) {
		t.Errorf("calico-node hostAliases %v, want %v", hostAliases, wantAliases)
	}
	var cm corev1.ConfigMap
	get(t, cl, "calico-system", "cni-config", &cm)
	for _, want := range []string{`"name": "k8s-pod-network"`, `"cniVersion": "1.0.0"`, `"type": "calico-ipam"`, `"type": "portmap"`,
		`"k8s_api_root": "https://10.96.0.1:443"`, `"kubeconfig": "__KUBECONFIG_FILEPATH__"`} {
		if !strings.Contains(cm.Data["config"], want) {
			t.Errorf("cni-config config lacks %s:\n%s", want, cm.Data["config"])
		}
	}
}

// checkCustomResources compares the Installation (spec after defaulting, status, finalizers), the
// pool and FelixConfiguration default with the measured ones.
func checkCustomResources(t *testing.T, cl *cluster, opts operatorOptions) {
	t.Helper()
	inst := operatorCR("Installation")
	get(t, cl, "", "default", inst)
	str := func(u *unstructured.Unstructured, path ...string) string {
		v, _, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
		return fmt.Sprint(v)
	}
	variant, windows := "Calico", "Disabled"
	if opts.Variant != "" {
		variant = opts.Variant
	}
	if opts.WindowsDataplane != "" {
		windows = opts.WindowsDataplane
	}
	finalizers := []string{"operator.tigera.io/installation-controller", "tigera.io/operator-cleanup", "operator.tigera.io/apiserver-controller"}
	if !opts.WithoutGoldmaneWhisker {
		finalizers = append(finalizers, "operator.tigera.io/goldmane-controller", "operator.tigera.io/whisker-controller")
	}
	got := []string{
		str(inst, "spec", "variant"), str(inst, "spec", "cni", "type"), str(inst, "spec", "cni", "ipam", "type"),
		str(inst, "spec", "calicoNetwork", "bgp"), str(inst, "spec", "calicoNetwork", "linuxDataplane"), str(inst, "spec", "calicoNetwork", "windowsDataplane"),
		str(inst, "status", "variant"), str(inst, "status", "calicoVersion"), strings.Join(inst.GetFinalizers(), ","),
	}
	want := []string{variant, "Calico", "Calico", "Enabled", "Iptables", windows, variant, "v3.31.7", strings.Join(finalizers, ",")}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Installation default (-measured +fixture):\n%s", d)
	}
	pools, _, _ := unstructured.NestedSlice(inst.Object, "spec", "calicoNetwork", "ipPools")
	if d := cmp.Diff([]any{map[string]any{
		"name": "default-ipv4-ippool", "cidr": "10.244.0.0/16", "blockSize": int64(26), "encapsulation": "VXLANCrossSubnet",
		"natOutgoing": "Enabled", "nodeSelector": "all()", "allowedUses": []any{"Workload", "Tunnel"},
		"assignmentMode": "Automatic", "disableBGPExport": false, "disableNewAllocations": false,
	}}, pools); d != "" {
		t.Errorf("Installation default ipPools (-measured +fixture):\n%s", d)
	}
	computed, _, _ := unstructured.NestedMap(inst.Object, "status", "computed")
	if d := cmp.Diff(inst.Object["spec"], any(computed)); d != "" {
		t.Errorf("status.computed is not the spec:\n%s", d)
	}
	apiServer := operatorCR("APIServer")
	get(t, cl, "", "default", apiServer)
	if s := str(apiServer, "status", "state"); s != "Ready" || len(apiServer.GetFinalizers()) != 0 {
		t.Errorf("APIServer default: state %s, finalizers %v", s, apiServer.GetFinalizers())
	}
	if !opts.PoolDeleted {
		pool := cl.pool("default-ipv4-ippool")
		s := pool.Spec
		if s.CIDR != "10.244.0.0/16" || s.BlockSize != 26 || s.VXLANMode != "CrossSubnet" || s.IPIPMode != "Never" || !s.NATOutgoing ||
			s.NodeSelector != "all()" || fmt.Sprint(s.AllowedUses) != "[Workload Tunnel]" || s.AssignmentMode == nil || *s.AssignmentMode != "Automatic" ||
			s.Disabled != opts.PoolDisabled || len(pool.OwnerReferences) != 0 {
			t.Errorf("IPPool default-ipv4-ippool: %+v, owners %v", s, pool.OwnerReferences)
		}
	}
	fc := calicoObject("FelixConfiguration", "default", nil, nil, nil)
	get(t, cl, "", "default", fc)
	spec, _, _ := unstructured.NestedMap(fc.Object, "spec")
	if d := cmp.Diff(map[string]any{"bpfEnabled": false, "bpfLogLevel": "", "healthPort": int64(9099), "nftablesMode": "Disabled",
		"vxlanPort": int64(4789), "vxlanVNI": int64(4096)}, spec); d != "" || fc.GetAnnotations()["operator.tigera.io/bpfEnabled"] != "false" {
		t.Errorf("FelixConfiguration default (-measured +stored):\n%s", d)
	}
}

// checkTLS checks the TLS material: the CA, the leaf certificates' CN, EKU and lifetime, identical
// copies in both namespaces, and the CA bundle.
func checkTLS(t *testing.T, cl *cluster, in *operatorInstall) {
	t.Helper()
	parse := func(b []byte) *x509.Certificate {
		blk, _ := pem.Decode(b)
		if blk == nil {
			t.Fatal("no PEM certificate")
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var caSecret corev1.Secret
	get(t, cl, "tigera-operator", "tigera-ca-private", &caSecret)
	ca := parse(caSecret.Data["tls.crt"])
	if ca.Subject.CommonName != "tigera-operator-signer" || !ca.IsCA || ca.NotAfter.Sub(in.Now) < 99*365*24*time.Hour ||
		string(caSecret.Data["tls.key"]) != string(in.CA.KeyPEM) {
		t.Errorf("tigera-ca-private: CN %s, CA %v, until %s", ca.Subject.CommonName, ca.IsCA, ca.NotAfter)
	}
	var bundle corev1.ConfigMap
	get(t, cl, "calico-system", "tigera-ca-bundle", &bundle)
	for _, k := range []string{"tigera-ca-bundle.crt", "ca.crt", "ca-bundle.crt"} {
		if bundle.Data[k] != string(in.CA.CertPEM) {
			t.Errorf("tigera-ca-bundle %s is not the CA certificate", k)
		}
	}
	for name, cn := range map[string]string{"node-certs": "typha-client", "typha-certs": "typha-server", "typha-certs-noncluster-host": "typha-server-noncluster-host",
		"calico-apiserver-certs": "calico-api", "goldmane-key-pair": "goldmane", "whisker-backend-key-pair": "127.0.0.1"} {
		var a, b corev1.Secret
		get(t, cl, "calico-system", name, &a)
		get(t, cl, "tigera-operator", name, &b)
		if d := cmp.Diff(a.Data, b.Data); d != "" || a.Type != corev1.SecretTypeTLS {
			t.Errorf("Secret %s: type %s, the copies differ:\n%s", name, a.Type, d)
		}
		c := parse(a.Data["tls.crt"])
		months := c.NotAfter.Sub(in.Now).Hours() / 24 / 30.4
		if c.Subject.CommonName != cn || c.IsCA || !slices.Equal(c.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}) || months < 26.5 || months > 27.5 {
			t.Errorf("Secret %s: CN %s, CA %v, EKU %v, valid %.1f months", name, c.Subject.CommonName, c.IsCA, c.ExtKeyUsage, months)
		}
		for _, u := range []typhatls.Usage{typhatls.Server, typhatls.Client} {
			if err := typhatls.Trusts([]byte(bundle.Data["tigera-ca-bundle.crt"]), a.Data["tls.crt"], u, time.Now()); err != nil {
				t.Errorf("Secret %s for %s: %v", name, u, err)
			}
		}
	}
}

// checkDiscovery: the APIService v3.projectcalico.org, which nothing serves, leaves the suite's
// client working (it maps kinds group by group) while a full discovery reports the one group it
// cannot reach, as discovery against any cluster whose aggregated API is down does.
func checkDiscovery(t *testing.T, cl *cluster) {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cl.cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = dc.ServerGroupsAndResources()
	var failed *discovery.ErrGroupDiscoveryFailed
	if !errors.As(err, &failed) {
		t.Errorf("discovery with an unserved v3.projectcalico.org: %v, want a group discovery failure", err)
	} else {
		var groups []string
		for gv := range failed.Groups {
			groups = append(groups, gv.String())
		}
		if !slices.Equal(groups, []string{"projectcalico.org/v3"}) {
			t.Errorf("discovery failed for %v, want [projectcalico.org/v3]", groups)
		}
	}
	var pools unstructured.UnstructuredList
	pools.SetAPIVersion("crd.projectcalico.org/v1")
	pools.SetKind("IPPoolList")
	if err := cl.c.List(context.Background(), &pools); err != nil {
		t.Errorf("listing crd.projectcalico.org pools beside an unserved projectcalico.org/v3: %v", err)
	}
}
