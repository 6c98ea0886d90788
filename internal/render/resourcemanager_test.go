package render_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/render"
)

// The shoot's gardener-resource-manager (GRM) applies every shoot object and its webhooks rewrite
// the pods (docs/gardener-integration.md §1, checklist §10 "Shoot MR" and "SAs"). These tests check the
// rendered objects of every golden scenario against what those webhooks and controllers require.

// podOwner is a rendered object with a pod template.
type podOwner struct {
	kind, name string
	meta       metav1.ObjectMeta
	template   *corev1.PodTemplateSpec
}

func podOwners(t *testing.T, objs []client.Object) []podOwner {
	t.Helper()
	var out []podOwner
	for _, o := range objs {
		switch w := o.(type) {
		case *appsv1.DaemonSet:
			out = append(out, podOwner{"DaemonSet", w.Name, w.ObjectMeta, &w.Spec.Template})
		case *appsv1.Deployment:
			out = append(out, podOwner{"Deployment", w.Name, w.ObjectMeta, &w.Spec.Template})
		case *appsv1.StatefulSet, *appsv1.ReplicaSet, *corev1.Pod:
			t.Fatalf("%T %s: this test does not know the kind; add it", o, o.GetName())
		}
	}
	return out
}

func serviceAccounts(objs []client.Object) map[string]*corev1.ServiceAccount {
	sas := map[string]*corev1.ServiceAccount{}
	for _, o := range objs {
		if sa, ok := o.(*corev1.ServiceAccount); ok {
			sas[sa.Namespace+"/"+sa.Name] = sa
		}
	}
	return sas
}

// projectedTokenMountInjects stands in for the shoot GRM's projected-token-mount webhook
// (pkg/resourcemanager/webhook/projectedtokenmount): it reports whether a pod created from
// template in namespace would get the projected API token, by the webhook's documented
// conditions in their order (docs/gardener-integration.md §1.1) and its selectors (§1, namespace
// kube-system or kubernetes-dashboard, no skip label, not the GRM itself). A ServiceAccount the
// webhook cannot read rejects the pod; that is reported as an error.
func projectedTokenMountInjects(namespace string, tmpl *corev1.PodTemplateSpec, sas map[string]*corev1.ServiceAccount) (bool, error) {
	if namespace != "kube-system" && namespace != "kubernetes-dashboard" {
		return false, nil
	}
	if _, skip := tmpl.Labels["projected-token-mount.resources.gardener.cloud/skip"]; skip {
		return false, nil
	}
	if tmpl.Labels["app"] == "gardener-resource-manager" {
		return false, nil
	}
	spec := tmpl.Spec
	// (1) a named ServiceAccount other than default.
	if spec.ServiceAccountName == "" || spec.ServiceAccountName == "default" {
		return false, nil
	}
	// (2) the ServiceAccount sets automountServiceAccountToken to false explicitly.
	sa, ok := sas[namespace+"/"+spec.ServiceAccountName]
	if !ok {
		return false, fmt.Errorf("ServiceAccount %s/%s not found: the webhook rejects the pod", namespace, spec.ServiceAccountName)
	}
	if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		return false, nil
	}
	// (3) the pod does not set it to false.
	if spec.AutomountServiceAccountToken != nil && !*spec.AutomountServiceAccountToken {
		return false, nil
	}
	// (4) no volume already provides an API token.
	for _, v := range spec.Volumes {
		if strings.HasPrefix(v.Name, "kube-api-access-") {
			return false, nil
		}
	}
	return true, nil
}

// criticalComponentsNotReady is the taint new shoot nodes carry until GRM sees every critical
// DaemonSet's pod ready on them (§1.5).
var criticalComponentsNotReady = corev1.Taint{Key: "node.gardener.cloud/critical-components-not-ready", Effect: corev1.TaintEffectNoSchedule}

// clusterScoped are the kinds the shoot objects have that have no namespace.
var clusterScoped = map[string]bool{
	"ClusterRole": true, "ClusterRoleBinding": true, "CustomResourceDefinition": true,
	"IPPool": true, "GlobalNetworkSet": true, "FelixConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
}

// namespaced are the namespaced kinds the shoot objects have.
var namespaced = map[string]bool{
	"ServiceAccount": true, "ConfigMap": true, "Service": true, "DaemonSet": true, "Deployment": true,
	"PodDisruptionBudget": true, "NetworkPolicy": true, "Role": true, "RoleBinding": true,
	"VerticalPodAutoscaler": true,
}

// skipLabels opt a pod or workload out of a GRM webhook (§1); calico's objects use none.
var skipLabels = []string{
	"projected-token-mount.resources.gardener.cloud/skip",
	"high-availability-config.resources.gardener.cloud/skip",
	"system-components-config.resources.gardener.cloud/skip",
	"topology-spread-constraints.resources.gardener.cloud/skip",
	"vpa-in-place-updates.resources.gardener.cloud/skip",
}

var cpvaTarget = regexp.MustCompile(`^--target=(deployment|daemonset)/(.+)$`)

func TestShootObjectsUnderResourceManager(t *testing.T) {
	for _, sc := range everyRelease {
		t.Run(sc.Name, func(t *testing.T) {
			objs := renderScenario(t, sc)
			sas := serviceAccounts(objs)
			byID := ids(objs)

			for _, o := range objs {
				kind := o.GetObjectKind().GroupVersionKind().Kind
				where := kind + " " + o.GetName()
				// Namespaced objects only in kube-system: the shoot GRM's cache sees no other
				// namespace that could hold them (docs/gardener-integration.md §10).
				switch {
				case clusterScoped[kind]:
					if o.GetNamespace() != "" {
						t.Errorf("%s: cluster-scoped object has namespace %q", where, o.GetNamespace())
					}
				case namespaced[kind]:
					if o.GetNamespace() != render.Namespace {
						t.Errorf("%s: namespace %q, want %s", where, o.GetNamespace(), render.Namespace)
					}
				default:
					t.Errorf("%s: kind not classified as namespaced or cluster-scoped; add it to this test", where)
				}
				// GRM reads preserve-* and skip-health-check only as the literal "true" (§2.4).
				for k, v := range o.GetAnnotations() {
					if (strings.HasPrefix(k, "resources.gardener.cloud/preserve-") || k == "resources.gardener.cloud/skip-health-check") && v != "true" {
						t.Errorf("%s: annotation %s=%q; GRM acts only on the literal \"true\"", where, k, v)
					}
				}
				if sa, ok := o.(*corev1.ServiceAccount); ok {
					if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
						t.Errorf("%s: automountServiceAccountToken must be false (the projected-token webhook keys on it)", where)
					}
				}
				if pdb, ok := o.(*policyv1.PodDisruptionBudget); ok {
					if p := pdb.Spec.UnhealthyPodEvictionPolicy; p == nil || *p != policyv1.AlwaysAllow {
						t.Errorf("%s: unhealthyPodEvictionPolicy %v, want AlwaysAllow", where, p)
					}
				}
			}

			owners := podOwners(t, objs)
			if len(owners) == 0 {
				t.Fatal("no pod templates rendered")
			}
			for _, w := range owners {
				where := w.kind + " " + w.name
				spec := &w.template.Spec
				if spec.AutomountServiceAccountToken != nil {
					t.Errorf("%s: pod sets automountServiceAccountToken=%v; it must stay unset for the projected token", where, *spec.AutomountServiceAccountToken)
				}
				inject, err := projectedTokenMountInjects(w.meta.Namespace, w.template, sas)
				if err != nil {
					t.Errorf("%s: %v", where, err)
				} else if !inject {
					t.Errorf("%s: its pods would get no API token from the projected-token-mount webhook", where)
				}
				for _, l := range skipLabels {
					if _, ok := w.template.Labels[l]; ok {
						t.Errorf("%s: pod template opts out of a GRM webhook with %s", where, l)
					}
					if _, ok := w.meta.Labels[l]; ok {
						t.Errorf("%s: opts out of a GRM webhook with %s", where, l)
					}
				}
				// Egress through gardenlet's kube-system policies (§9).
				for _, l := range []string{"networking.gardener.cloud/to-apiserver", "networking.gardener.cloud/to-dns"} {
					if w.template.Labels[l] != "allowed" {
						t.Errorf("%s: pod label %s=%q, want allowed", where, l, w.template.Labels[l])
					}
				}
				if w.template.Labels["gardener.cloud/role"] != "system-component" || w.meta.Labels["gardener.cloud/role"] != "system-component" {
					t.Errorf("%s: %s must be system-component on the object and its pods", where, "gardener.cloud/role")
				}

				if w.kind == "DaemonSet" {
					// Critical components: label on DaemonSet and template, and the pod must land
					// while the not-ready taint is still on (§1.5).
					if w.meta.Labels[render.LabelCriticalComponent] != "true" || w.template.Labels[render.LabelCriticalComponent] != "true" {
						t.Errorf("%s: %s=true missing on the DaemonSet or its template", where, render.LabelCriticalComponent)
					}
					tolerated := false
					for i := range spec.Tolerations {
						if spec.Tolerations[i].ToleratesTaint(klog.Background(), &criticalComponentsNotReady, false) {
							tolerated = true
						}
					}
					if !tolerated {
						t.Errorf("%s: does not tolerate %s:NoSchedule", where, criticalComponentsNotReady.Key)
					}
					continue
				}
				// Non-DaemonSet pods get the system-components node selector and the pools'
				// tolerations merged in (§1.3), and multi-replica Deployments hostname/zone
				// topology spread (§1.2): nothing rendered may contradict them.
				if v, ok := spec.NodeSelector["worker.gardener.cloud/system-components"]; ok && v != "true" {
					t.Errorf("%s: nodeSelector worker.gardener.cloud/system-components=%q contradicts the webhook's \"true\"", where, v)
				}
				if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
					t.Errorf("%s: required node affinity may exclude the system-component pools", where)
				}
				for _, tsc := range spec.TopologySpreadConstraints {
					t.Errorf("%s: own topology spread constraint on %s; the HA webhook owns them", where, tsc.TopologyKey)
				}
				if _, ok := w.meta.Labels["high-availability-config.resources.gardener.cloud/type"]; ok {
					t.Errorf("%s: HA type label would make the webhook set the replicas", where)
				}
				// A cluster-proportional vertical autoscaler rewrites its target's template: the
				// target must ask GRM to keep the requests it set.
				for _, c := range spec.Containers {
					if len(c.Command) == 0 || c.Command[0] != "/cpvpa" {
						continue
					}
					for _, arg := range c.Command {
						m := cpvaTarget.FindStringSubmatch(arg)
						if m == nil {
							continue
						}
						kind := map[string]string{"deployment": "Deployment", "daemonset": "DaemonSet"}[m[1]]
						target, ok := byID[id{kind, m[2]}]
						if !ok {
							t.Errorf("%s: scales %s %s, which is not rendered", where, kind, m[2])
						} else if target.GetAnnotations()["resources.gardener.cloud/preserve-resources"] != "true" {
							t.Errorf("%s %s: scaled by %s but lacks %s: \"true\"", kind, m[2], w.name, "resources.gardener.cloud/preserve-resources")
						}
					}
				}
			}

			// calico-node reaches outside the cluster (public registries for the node's own
			// checks, wireguard peers); the reference gives it to-public-networks.
			node := calicoNode(t, objs)
			if node.Spec.Template.Labels["networking.gardener.cloud/to-public-networks"] != "allowed" {
				t.Error("calico-node: pod label networking.gardener.cloud/to-public-networks is not allowed")
			}
		})
	}
}

// TestProjectedTokenMountStandIn shows the stand-in tells the two cases of issue 10 apart: a pod
// that sets the token field gets nothing, one that leaves it unset gets the token.
func TestProjectedTokenMountStandIn(t *testing.T) {
	f := false
	sas := map[string]*corev1.ServiceAccount{"kube-system/sa": {AutomountServiceAccountToken: &f}}
	tmpl := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{ServiceAccountName: "sa"}}
	if ok, err := projectedTokenMountInjects("kube-system", tmpl, sas); err != nil || !ok {
		t.Errorf("unset pod field: inject=%v err=%v, want true", ok, err)
	}
	tmpl.Spec.AutomountServiceAccountToken = &f
	if ok, _ := projectedTokenMountInjects("kube-system", tmpl, sas); ok {
		t.Error("pod field false: the webhook injects nothing")
	}
	tmpl.Spec.AutomountServiceAccountToken = nil
	sas["kube-system/sa"].AutomountServiceAccountToken = nil
	if ok, _ := projectedTokenMountInjects("kube-system", tmpl, sas); ok {
		t.Error("SA field unset: the webhook injects nothing")
	}
	if _, err := projectedTokenMountInjects("kube-system", &corev1.PodTemplateSpec{Spec: corev1.PodSpec{ServiceAccountName: "missing"}}, sas); err == nil {
		t.Error("missing SA: the webhook rejects the pod")
	}
}
