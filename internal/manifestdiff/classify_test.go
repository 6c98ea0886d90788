package manifestdiff

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/manifestdiff/manifestdifftest"
)

// crd is the IPPool CRD with spec properties cidr and disabled.
var crd = manifestdifftest.IPPoolCRD("cidr: {type: string}", "disabled: {type: boolean}")

func TestClassifyRules(t *testing.T) {
	const ds = "DaemonSet.apps kube-system/calico-node"
	withAnnotation := func(doc, meta, anno string) string {
		return replace(t, doc, meta, strings.TrimSuffix(meta, "}")+", annotations: {"+anno+"}}")
	}
	cases := []diffCase{
		{
			name: "mode Ignore: released, not updated",
			old:  []string{calicoConfig},
			new: []string{replace(t, withAnnotation(calicoConfig, "metadata: {name: calico-config, namespace: kube-system}", "resources.gardener.cloud/mode: Ignore"),
				"calico_backend: bird", "calico_backend: none")},
			want: []string{
				"changed ConfigMap kube-system/calico-config",
				`  changed data.calico_backend "bird" -> "none" => not-applied by ignored-object`,
				`  added metadata.annotations {"resources.gardener.cloud/mode":"Ignore"} => not-applied by ignored-object`,
			},
		},
		{
			name: "ignore annotation (ParseBool): never updated",
			old:  []string{withAnnotation(ipPool, "metadata: {name: default-ipv4-ippool}", "resources.gardener.cloud/ignore: \"1\"")},
			new:  []string{replace(t, withAnnotation(ipPool, "metadata: {name: default-ipv4-ippool}", "resources.gardener.cloud/ignore: \"1\""), "cidr: 100.96.0.0/11", "cidr: 10.0.0.0/8")},
			want: []string{
				"changed IPPool.crd.projectcalico.org default-ipv4-ippool",
				`  changed spec.cidr "100.96.0.0/11" -> "10.0.0.0/8" => not-applied by ignored-object`,
			},
		},
		{
			name: "added object with mode Ignore is never created",
			old:  nil,
			new:  []string{withAnnotation(ipPool, "metadata: {name: default-ipv4-ippool}", "resources.gardener.cloud/mode: Ignore")},
			want: []string{"added IPPool.crd.projectcalico.org default-ipv4-ippool => not-applied by ignored-object"},
		},
		{
			name: "preserve-resources needs the literal true",
			old:  []string{replace(t, calicoNode, `preserve-resources: "true"`, `preserve-resources: "True"`)},
			new:  []string{replace(t, replace(t, calicoNode, `preserve-resources: "true"`, `preserve-resources: "True"`), "cpu: 250m", "cpu: 500m")},
			want: []string{
				"changed " + ds,
				`  changed spec.template.spec.containers[name=calico-node].resources.requests.cpu "250m" -> "500m" => restart(DaemonSet kube-system/calico-node) by pod-template`,
			},
		},
		{
			name: "OnDelete DaemonSet defers the template change",
			old:  []string{calicoNode},
			new: []string{replace(t, replace(t, calicoNode, "updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}", "updateStrategy: {type: OnDelete}"),
				"image: quay.io/calico/node:v3.31.6", "image: quay.io/calico/node:v3.32.0")},
			want: []string{
				"changed " + ds,
				`  changed spec.template.spec.containers[name=calico-node].image "quay.io/calico/node:v3.31.6" -> "quay.io/calico/node:v3.32.0" => deferred(DaemonSet kube-system/calico-node) by pod-template`,
				`  removed spec.updateStrategy.rollingUpdate {"maxSurge":0,"maxUnavailable":2} => safe by default`,
				`  changed spec.updateStrategy.type "RollingUpdate" -> "OnDelete" => safe by default`,
			},
		},
		{
			name: "DaemonSet fields outside the template do not restart",
			old:  []string{calicoNode},
			new:  []string{replace(t, calicoNode, "labels: {k8s-app: calico-node}\n  annotations", "labels: {k8s-app: calico-node, extra: x}\n  annotations")},
			want: []string{
				"changed " + ds,
				`  added metadata.labels.extra "x" => safe by default`,
			},
		},
		{
			name: "finalizers come from the live object",
			old:  []string{calicoConfig},
			new:  []string{replace(t, calicoConfig, "metadata: {name: calico-config, namespace: kube-system}", "metadata: {name: calico-config, namespace: kube-system, finalizers: [x]}")},
			want: []string{
				"changed ConfigMap kube-system/calico-config",
				`  added metadata.finalizers ["x"] => not-applied by live-metadata`,
			},
		},
		{
			name: "replicas with an HPA are kept",
			old:  []string{typha},
			new: []string{replace(t, typha, "replicas: 1", "replicas: 4"),
				"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: typha, namespace: kube-system}\nspec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: calico-typha-deploy}, maxReplicas: 5}\n"},
			want: []string{
				"changed Deployment.apps kube-system/calico-typha-deploy",
				`  changed spec.replicas 1 -> 4 => not-applied by preserve-replicas`,
				"added HorizontalPodAutoscaler.autoscaling kube-system/typha => safe by default",
			},
		},
		{
			name: "ConfigMap mounted as a volume is refreshed in running pods",
			old: []string{calicoConfig, replace(t, typha, "ports: [",
				"volumeMounts: [{name: cfg, mountPath: /etc/cfg}]\n        ports: [") + "      volumes: [{name: cfg, configMap: {name: calico-config}}]\n"},
			new: []string{replace(t, calicoConfig, `veth_mtu: "0"`, `veth_mtu: "1"`), replace(t, typha, "ports: [",
				"volumeMounts: [{name: cfg, mountPath: /etc/cfg}]\n        ports: [") + "      volumes: [{name: cfg, configMap: {name: calico-config}}]\n"},
			want: []string{
				"changed ConfigMap kube-system/calico-config",
				`  changed data.veth_mtu "0" -> "1" => safe by config-reference`,
			},
		},
		{
			name: "CRD removal deletes the stored objects",
			old:  []string{crd},
			new:  nil,
			want: []string{"removed CustomResourceDefinition.apiextensions.k8s.io ippools.crd.projectcalico.org => disruptive by crd"},
		},
		{
			name: "CRD schema property removed",
			old:  []string{crd},
			new:  []string{manifestdifftest.IPPoolCRD("cidr: {type: string}")},
			want: []string{
				"changed CustomResourceDefinition.apiextensions.k8s.io ippools.crd.projectcalico.org",
				`  removed spec.versions[name=v1].schema.openAPIV3Schema.properties.spec.properties.disabled {"type":"boolean"} => disruptive by crd`,
			},
		},
		{
			name: "IPPool re-enabled",
			old:  []string{replace(t, ipPool, "nodeSelector: all()", "nodeSelector: all()\n  disabled: true")},
			new:  []string{ipPool},
			want: []string{
				"changed IPPool.crd.projectcalico.org default-ipv4-ippool",
				`  removed spec.disabled true => safe by ippool`,
			},
		},
		{
			name: "RBAC rules without a key are aligned by content",
			old: []string{"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: calico-node}\nrules:\n" +
				"- {apiGroups: [\"\"], resources: [pods], verbs: [get]}\n- {apiGroups: [\"\"], resources: [nodes], verbs: [get]}\n"},
			new: []string{"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: calico-node}\nrules:\n" +
				"- {apiGroups: [\"\"], resources: [namespaces], verbs: [list]}\n- {apiGroups: [\"\"], resources: [pods], verbs: [get]}\n- {apiGroups: [\"\"], resources: [nodes], verbs: [get, list]}\n"},
			want: []string{
				"changed ClusterRole.rbac.authorization.k8s.io calico-node",
				`  added rules[0] {"apiGroups":[""],"resources":["namespaces"],"verbs":["list"]} => safe by rbac`,
				`  changed rules[2].verbs ["get"] -> ["get","list"] => safe by default`,
			},
		},
	}
	runDiffCases(t, cases)
}

// TestRBACAndSchemaReasons: a role change says, once per role, which permissions it gains and
// loses; a CRD schema change says which field's accepted values change (issue 19: an operator sees
// "calico-node gains get on globalfelixconfigs" before it happens).
func TestRBACAndSchemaReasons(t *testing.T) {
	p := newParser(t)
	role := "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: calico-node}\nrules:\n"
	crd := func(prop string) string {
		return manifestdifftest.CalicoCRD("BGPPeer", "bgppeers", "nextHopMode: "+prop)
	}
	d := classified(
		mrSet(t, p, role+"- {apiGroups: [\"\"], resources: [configmaps], verbs: [get, list, watch]}\n- {apiGroups: [crd.projectcalico.org], resources: [ippools], verbs: [get]}\n",
			crd("{type: string}")),
		mrSet(t, p, role+"- {apiGroups: [\"\"], resources: [configmaps], verbs: [get]}\n- {apiGroups: [crd.projectcalico.org], resources: [globalfelixconfigs], resourceNames: [calicoversion], verbs: [get]}\n- {apiGroups: [crd.projectcalico.org], resources: [ippools, tiers], verbs: [get, create]}\n",
			crd("{type: string, enum: [Auto, Self, Keep]}")),
	)
	var reasons []string
	for _, o := range d.Objects {
		for _, im := range o.AllImpacts() {
			if im.Rule == "rbac" || im.Rule == "crd" {
				reasons = append(reasons, im.Rule+": "+im.Reason)
			}
		}
	}
	want := []string{
		"rbac: ClusterRole calico-node gains create on crd.projectcalico.org/ippools; create, get on crd.projectcalico.org/tiers; get on crd.projectcalico.org/globalfelixconfigs (calicoversion), loses list, watch on configmaps (applied in place; the component's next request uses them)",
		"crd: CRD bgppeers.crd.projectcalico.org: the values accepted for spec.nextHopMode change (enum added); new writes outside them are rejected, stored objects keep an unchanged value (the API server ratchets)",
	}
	sort.Strings(reasons)
	sort.Strings(want)
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}

// plan extends the classifier with its own rules; gates still win over them.
func TestClassifierExtension(t *testing.T) {
	p := newParser(t)
	blockReenable := Rule{
		Name: "owner-disabled-pool",
		Change: func(_ *Diff, o *ObjectDiff, c *FieldChange) []Impact {
			if isIPPool(o.ID) && c.Path == "spec.disabled" && c.Op == OpRemoved {
				return []Impact{{Class: ClassBlocked, Reason: "the cluster owner disabled pool " + o.ID.Name}}
			}
			return nil
		},
	}
	cl := DefaultClassifier()
	cl.Rules = append(cl.Rules, blockReenable)
	disabled := replace(t, ipPool, "nodeSelector: all()", "nodeSelector: all()\n  disabled: true")
	d := Compare(mrSet(t, p, disabled), mrSet(t, p, ipPool))
	cl.Classify(d)
	want := []string{
		"changed IPPool.crd.projectcalico.org default-ipv4-ippool",
		"  removed spec.disabled true => blocked by owner-disabled-pool",
	}
	if diff := cmp.Diff(want, lines(d)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if s := d.Summarize(); s.Highest != ClassBlocked {
		t.Errorf("highest = %q", s.Highest)
	}
	// The IPPool rule's own impact is kept next to the blocker.
	if got := len(d.Objects[0].Changes[0].Impacts); got != 2 {
		t.Errorf("want the ippool and the blocker impact, got %d", got)
	}

	kept := replace(t, disabled, "metadata: {name: default-ipv4-ippool}", "metadata: {name: default-ipv4-ippool, annotations: {resources.gardener.cloud/mode: Ignore}}")
	d = Compare(mrSet(t, p, kept), mrSet(t, p, replace(t, kept, "\n  disabled: true", "")))
	cl.Classify(d)
	if e := Effective(d.Objects[0].Changes[0].Impacts); e.Class != ClassNotApplied {
		t.Errorf("a released pool is not updated, so it cannot be re-enabled: got %+v", e)
	}
}

func TestTextOutput(t *testing.T) {
	p := newParser(t)
	cniOld := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: calico-config, namespace: kube-system}\ndata:\n  cni: |\n    {\n      \"mtu\": 0,\n      \"type\": \"calico\"\n    }\n"
	cniNew := replace(t, cniOld, `"mtu": 0,`, `"mtu": 1400,`)
	d := classified(mrSet(t, p, calicoNode, cniOld, kubeControllers),
		mrSet(t, p, replace(t, calicoNode,
			"- {name: DATASTORE_TYPE, value: kubernetes}\n        - {name: FELIX_IPINIPENABLED, value: \"true\"}",
			"- {name: FELIX_IPINIPENABLED, value: \"false\"}\n        - {name: DATASTORE_TYPE, value: kubernetes}"), cniNew, ipPool))
	want := `1 added, 1 removed, 2 changed, 0 unchanged
highest impact: disruptive
restarts: DaemonSet kube-system/calico-node

~ ConfigMap kube-system/calico-config  [safe]
    ~ data.cni:  [safe]
        -   "mtu": 0,
        +   "mtu": 1400,
    why safe: no workload in the new manifest reads this key

~ DaemonSet kube-system/calico-node (apps)  [restart]
    ~ spec.template.spec.containers[name=calico-node].env[name=FELIX_IPINIPENABLED].value: "true" -> "false"  [restart]
    ~ spec.template.spec.containers[name=calico-node].env: order ["name=DATASTORE_TYPE","name=FELIX_IPINIPENABLED","name=CALICO_NETWORKING_BACKEND"] -> ["name=FELIX_IPINIPENABLED","name=DATASTORE_TYPE","name=CALICO_NETWORKING_BACKEND"]  [restart]
    why restart: the pod template changed: the DaemonSet controller replaces every pod (rolling update, maxUnavailable 2)
    why restart: the order of a pod template list changed (the controller hashes the template as stored, so this counts as a change): the DaemonSet controller replaces every pod (rolling update, maxUnavailable 2)

- Deployment kube-system/calico-kube-controllers (apps)  [disruptive]
    why disruptive: the resource manager deletes the Deployment (foreground): all its pods stop

+ IPPool default-ipv4-ippool (crd.projectcalico.org)  [safe]
`
	if diff := cmp.Diff(want, textOf(t, d)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The JSON field names are the documented schema; scripts depend on them.
func TestJSONSchema(t *testing.T) {
	p := newParser(t)
	d := classified(mrSet(t, p, calicoNode, secret), mrSet(t, p,
		replace(t, calicoNode, "checksum/configmap-calico: aaaa", "checksum/configmap-calico: bbbb"),
		replace(t, secret, "c2VjcmV0LW9uZQ==", "eA=="), ipPool))
	var doc map[string]any
	if err := json.Unmarshal([]byte(jsonOf(t, d)), &doc); err != nil {
		t.Fatal(err)
	}
	keys := func(v any) []string {
		var out []string
		for k := range v.(map[string]any) {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	objects := doc["objects"].([]any)
	checks := []struct {
		what string
		got  any
		want []string
	}{
		{"top level", doc, []string{"objects", "problems", "schema", "summary"}},
		{"summary", doc["summary"], []string{"added", "changed", "counts", "deferred", "highest", "removed", "restarts", "unchanged"}},
		{"problems", doc["problems"], []string{"new", "old"}},
		{"object", objects[0], []string{"changes", "group", "id", "impact", "impacts", "kind", "name", "namespace", "newApiVersion", "oldApiVersion", "op"}},
		{"change", objects[0].(map[string]any)["changes"].([]any)[0], []string{"impact", "impacts", "new", "old", "op", "path", "redacted"}},
		{"impact", objects[0].(map[string]any)["impact"], []string{"class", "reason", "rule", "workloads"}},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, keys(c.got)); diff != "" {
			t.Errorf("%s keys (-want +got):\n%s", c.what, diff)
		}
	}
	if doc["schema"] != SchemaVersion || SchemaVersion != "calico-pilot.manifestdiff/v1" {
		t.Errorf("schema = %v", doc["schema"])
	}
	secretChange := objects[2].(map[string]any)["changes"].([]any)[0].(map[string]any)
	if secretChange["redacted"] != true || secretChange["old"] != nil || secretChange["new"] != nil || secretChange["path"] != "data.token" {
		t.Errorf("secret change: %v", secretChange)
	}
}
