package manifestdiff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// lines flattens a classified diff: one line per object and per change, with the effective class
// and the restarted/deferred workloads.
func lines(d *Diff) []string {
	var out []string
	for _, o := range d.Objects {
		l := fmt.Sprintf("%s %s", o.Op, o.ID)
		if len(o.Impacts) > 0 {
			l += " => " + impactString(Effective(o.Impacts))
		}
		out = append(out, l)
		for _, c := range o.Changes {
			v := ""
			switch {
			case c.Redacted:
				v = " <redacted>"
			case c.Op == OpChanged || c.Op == OpReordered:
				v = fmt.Sprintf(" %s -> %s", short(c.Old), short(c.New))
			case c.Op == OpAdded:
				v = " " + short(c.New)
			case c.Op == OpRemoved:
				v = " " + short(c.Old)
			}
			out = append(out, fmt.Sprintf("  %s %s%s => %s", c.Op, c.Path, v, impactString(Effective(c.Impacts))))
		}
	}
	return out
}

func impactString(im Impact) string {
	s := string(im.Class)
	if len(im.Workloads) > 0 {
		s += "(" + strings.Join(im.Workloads, ",") + ")"
	}
	return s + " by " + im.Rule
}

func TestCompareCalicoObjects(t *testing.T) {
	const ds = "DaemonSet.apps kube-system/calico-node"
	cases := []diffCase{
		{
			name: "identical manifests",
			old:  []string{calicoNode, calicoConfig},
			new:  []string{calicoConfig, calicoNode},
			want: nil,
		},
		{
			name: "env value change restarts calico-node",
			old:  []string{calicoNode},
			new:  []string{replace(t, calicoNode, `{name: FELIX_IPINIPENABLED, value: "true"}`, `{name: FELIX_IPINIPENABLED, value: "false"}`)},
			want: []string{
				"changed " + ds,
				`  changed spec.template.spec.containers[name=calico-node].env[name=FELIX_IPINIPENABLED].value "true" -> "false" => restart(DaemonSet kube-system/calico-node) by pod-template`,
			},
		},
		{
			name: "env reorder has no field change, but the stored template order changes",
			old:  []string{calicoNode},
			new: []string{replace(t, calicoNode,
				"- {name: DATASTORE_TYPE, value: kubernetes}\n        - {name: FELIX_IPINIPENABLED, value: \"true\"}",
				"- {name: FELIX_IPINIPENABLED, value: \"true\"}\n        - {name: DATASTORE_TYPE, value: kubernetes}")},
			want: []string{
				"changed " + ds,
				`  reordered spec.template.spec.containers[name=calico-node].env ["name=DATASTORE_TYPE","name=FELIX_IPINIPENABLED","name=CALICO_NETWORKING_BACKEND"] -> ["name=FELIX_IPINIPENABLED","name=DATASTORE_TYPE","name=CALICO_NETWORKING_BACKEND"] => restart(DaemonSet kube-system/calico-node) by pod-template`,
			},
		},
		{
			name: "checksum annotation change restarts calico-node",
			old:  []string{calicoNode},
			new:  []string{replace(t, calicoNode, "checksum/configmap-calico: aaaa", "checksum/configmap-calico: bbbb")},
			want: []string{
				"changed " + ds,
				`  changed spec.template.metadata.annotations["checksum/configmap-calico"] "aaaa" -> "bbbb" => restart(DaemonSet kube-system/calico-node) by pod-template`,
			},
		},
		{
			name: "ConfigMap change without a checksum change is deferred for calico-node",
			old:  []string{calicoNode, calicoConfig},
			new:  []string{calicoNode, replace(t, calicoConfig, "calico_backend: bird", "calico_backend: none")},
			want: []string{
				"changed ConfigMap kube-system/calico-config",
				`  changed data.calico_backend "bird" -> "none" => deferred(DaemonSet kube-system/calico-node) by config-reference`,
			},
		},
		{
			name: "ConfigMap change with a checksum change rides on the restart",
			old:  []string{calicoNode, calicoConfig},
			new: []string{replace(t, calicoNode, "checksum/configmap-calico: aaaa", "checksum/configmap-calico: bbbb"),
				replace(t, calicoConfig, "calico_backend: bird", "calico_backend: none")},
			want: []string{
				"changed ConfigMap kube-system/calico-config",
				`  changed data.calico_backend "bird" -> "none" => safe by config-reference`,
				"changed " + ds,
				`  changed spec.template.metadata.annotations["checksum/configmap-calico"] "aaaa" -> "bbbb" => restart(DaemonSet kube-system/calico-node) by pod-template`,
			},
		},
		{
			name: "ConfigMap key nobody reads",
			old:  []string{calicoNode, calicoConfig},
			new:  []string{calicoNode, replace(t, calicoConfig, `veth_mtu: "0"`, `veth_mtu: "1400"`)},
			want: []string{
				"changed ConfigMap kube-system/calico-config",
				`  changed data.veth_mtu "0" -> "1400" => safe by config-reference`,
			},
		},
		{
			name: "preserved container resources are not applied",
			old:  []string{calicoNode},
			new:  []string{replace(t, calicoNode, "cpu: 250m", "cpu: 500m")},
			want: []string{
				"changed " + ds,
				`  changed spec.template.spec.containers[name=calico-node].resources.requests.cpu "250m" -> "500m" => not-applied by preserve-resources`,
			},
		},
		{
			name: "equal quantities written differently are no change",
			old:  []string{calicoNode},
			new:  []string{replace(t, calicoNode, "cpu: 250m", "cpu: 0.25")},
			want: nil,
		},
		{
			name: "added IPPool",
			old:  []string{calicoNode},
			new:  []string{calicoNode, ipPool},
			want: []string{"added IPPool.crd.projectcalico.org default-ipv4-ippool => safe by default"},
		},
		{
			name: "removed kube-controllers",
			old:  []string{calicoNode, kubeControllers},
			new:  []string{calicoNode},
			want: []string{"removed Deployment.apps kube-system/calico-kube-controllers => disruptive by removed-object"},
		},
		{
			name: "removed IPPool",
			old:  []string{ipPool},
			new:  []string{},
			want: []string{"removed IPPool.crd.projectcalico.org default-ipv4-ippool => disruptive by ippool"},
		},
		{
			name: "removed IPPool with keep-object is kept",
			old:  []string{replace(t, ipPool, "metadata: {name: default-ipv4-ippool}", "metadata: {name: default-ipv4-ippool, annotations: {resources.gardener.cloud/keep-object: \"true\"}}")},
			new:  []string{},
			want: []string{"removed IPPool.crd.projectcalico.org default-ipv4-ippool => not-applied by kept-object"},
		},
		{
			name: "IPPool CIDR and encapsulation",
			old:  []string{ipPool},
			new:  []string{replace(t, replace(t, ipPool, "cidr: 100.96.0.0/11", "cidr: 100.64.0.0/11"), "ipipMode: Always", "ipipMode: Never")},
			want: []string{
				"changed IPPool.crd.projectcalico.org default-ipv4-ippool",
				`  changed spec.cidr "100.96.0.0/11" -> "100.64.0.0/11" => disruptive by ippool`,
				`  changed spec.ipipMode "Always" -> "Never" => disruptive by ippool`,
			},
		},
		{
			name: "Secret value change shows no value",
			old:  []string{secret},
			new:  []string{replace(t, secret, "c2VjcmV0LW9uZQ==", "c2VjcmV0LXR3bw==")},
			want: []string{
				"changed Secret kube-system/calico-etcd-secrets",
				`  changed data.token <redacted> => safe by config-reference`,
			},
		},
		{
			name: "port renamed",
			old:  []string{typha},
			new:  []string{replace(t, typha, "name: calico-typha, containerPort", "name: typha, containerPort")},
			want: []string{
				"changed Deployment.apps kube-system/calico-typha-deploy",
				`  added spec.template.spec.containers[name=calico-typha].ports[name=typha] {"containerPort":5473,"name":"typha","protocol":"TCP"} => restart(Deployment kube-system/calico-typha-deploy) by pod-template`,
				`  removed spec.template.spec.containers[name=calico-typha].ports[name=calico-typha] {"containerPort":5473,"name":"calico-typha","protocol":"TCP"} => restart(Deployment kube-system/calico-typha-deploy) by pod-template`,
			},
		},
		{
			// Issue 30: the reference writes imagePullPolicy and fieldRef.apiVersion, calico-pilot
			// leaves them to the API server, which stores the same values: no restart.
			name: "defaults written out equal defaults left to the API server",
			old: []string{replace(t, replace(t, typha, "image: quay.io/calico/typha:v3.31.6", "image: quay.io/calico/typha:v3.31.6\n        imagePullPolicy: IfNotPresent\n        terminationMessagePath: /dev/termination-log"),
				"ports: [{name: calico-typha, containerPort: 5473, protocol: TCP}]", "ports: [{name: calico-typha, containerPort: 5473, protocol: TCP}]\n        env: [{name: NODENAME, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: spec.nodeName}}}]\n      dnsPolicy: ClusterFirst\n      terminationGracePeriodSeconds: 30\n  revisionHistoryLimit: 10")},
			new:  []string{replace(t, typha, "ports: [{name: calico-typha, containerPort: 5473, protocol: TCP}]", "ports: [{name: calico-typha, containerPort: 5473}]\n        env: [{name: NODENAME, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]")},
			want: nil,
		},
		{
			// A :latest image is pulled Always by default: IfNotPresent written out is a change.
			name: "pull policy of a latest image",
			old:  []string{replace(t, typha, "image: quay.io/calico/typha:v3.31.6", "image: quay.io/calico/typha:latest\n        imagePullPolicy: IfNotPresent")},
			new:  []string{replace(t, typha, "image: quay.io/calico/typha:v3.31.6", "image: quay.io/calico/typha:latest")},
			want: []string{
				"changed Deployment.apps kube-system/calico-typha-deploy",
				`  changed spec.template.spec.containers[name=calico-typha].imagePullPolicy "IfNotPresent" -> "Always" => restart(Deployment kube-system/calico-typha-deploy) by pod-template`,
			},
		},
		{
			name: "container added",
			old:  []string{typha},
			new:  []string{typha + "      - {name: sidecar, image: busybox}\n"},
			want: []string{
				"changed Deployment.apps kube-system/calico-typha-deploy",
				`  added spec.template.spec.containers[name=sidecar] {"image":"busybox","imagePullPolicy":"Always","name":"sidecar","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"} => restart(Deployment kube-system/calico-typha-deploy) by pod-template`,
			},
		},
		{
			name: "selector change is immutable",
			old:  []string{typha},
			new:  []string{replace(t, typha, "selector: {matchLabels: {k8s-app: calico-typha}}", "selector: {matchLabels: {k8s-app: typha}}")},
			want: []string{
				"changed Deployment.apps kube-system/calico-typha-deploy",
				`  changed spec.selector.matchLabels.k8s-app "calico-typha" -> "typha" => disruptive by immutable-field`,
			},
		},
		{
			name: "replicas change of a Deployment is applied without restart",
			old:  []string{typha},
			new:  []string{replace(t, typha, "replicas: 1", "replicas: 2")},
			want: []string{
				"changed Deployment.apps kube-system/calico-typha-deploy",
				`  changed spec.replicas 1 -> 2 => safe by default`,
			},
		},
		{
			name: "resource manager's own metadata is ignored",
			old:  []string{calicoConfig},
			new: []string{replace(t, calicoConfig, "metadata: {name: calico-config, namespace: kube-system}",
				"metadata: {name: calico-config, namespace: kube-system, resourceVersion: \"5\", uid: x, labels: {resources.gardener.cloud/managed-by: gardener}, annotations: {resources.gardener.cloud/origin: seed:ns/mr}}\nstatus: {x: 1}")},
			want: nil,
		},
	}
	runDiffCases(t, cases)
}

func TestSecretValuesNeverPrinted(t *testing.T) {
	p := newParser(t)
	newSecret := replace(t, secret, "c2VjcmV0LW9uZQ==", "c2VjcmV0LXR3bw==")
	newSecret = replace(t, newSecret, "type: Opaque", "type: Opaque\nstringData: {extra: plain-secret}")
	cases := map[string]*Diff{
		"changed": classified(mrSet(t, p, secret), mrSet(t, p, newSecret)),
		"added":   classified(mrSet(t, p), mrSet(t, p, newSecret)),
		"removed": classified(mrSet(t, p, secret), mrSet(t, p)),
	}
	for name, d := range cases {
		if len(d.Objects) != 1 {
			t.Fatalf("%s: want one object, got %d", name, len(d.Objects))
		}
		for _, out := range []string{jsonOf(t, d), textOf(t, d)} {
			for _, secretText := range []string{"c2VjcmV0LW9uZQ==", "c2VjcmV0LXR3bw==", "plain-secret", "cGxhaW4tc2VjcmV0"} {
				if strings.Contains(out, secretText) {
					t.Errorf("%s: output contains secret value %q:\n%s", name, secretText, out)
				}
			}
		}
	}
	if got := textOf(t, cases["changed"]); !strings.Contains(got, "~ data.token: (Secret value changed; not shown)") ||
		!strings.Contains(got, "+ data.extra: (Secret value added; not shown)") {
		t.Errorf("text output does not name the changed keys:\n%s", got)
	}
}

// The same objects as YAML, as JSON (one stream, and one key per object), and as a List give the
// same diff.
func TestFormatsGiveTheSameDiff(t *testing.T) {
	p := newParser(t)
	old := mrSet(t, p, calicoNode, calicoConfig, typha)
	newDocs := []string{
		replace(t, calicoNode, `{name: FELIX_IPINIPENABLED, value: "true"}`, `{name: FELIX_IPINIPENABLED, value: "false"}`),
		replace(t, calicoConfig, "calico_backend: bird", "calico_backend: none"),
		ipPool,
	}
	want := jsonOf(t, classified(old, mrSet(t, p, newDocs...)))

	var jsonDocs []string
	data := map[string][]byte{}
	var items []string
	for i, doc := range newDocs {
		js := toJSON(t, doc)
		jsonDocs = append(jsonDocs, js)
		data[fmt.Sprintf("%02d.json", i)] = []byte(js)
		items = append(items, js)
	}
	inputs := map[string]func() (*Set, error){
		"JSON stream": func() (*Set, error) {
			return p.ManagedResourceData(map[string][]byte{"config.json": []byte(strings.Join(jsonDocs, "\n"))})
		},
		"YAML stream of JSON documents": func() (*Set, error) {
			return p.ManagedResourceData(map[string][]byte{"config.yaml": []byte("---\n" + strings.Join(jsonDocs, "\n---\n"))})
		},
		"one key per object": func() (*Set, error) { return p.ManagedResourceData(data) },
		"List (Stream)": func() (*Set, error) {
			return p.Stream("list.json", []byte(`{"apiVersion":"v1","kind":"List","items":[`+strings.Join(items, ",")+`]}`))
		},
		"YAML (Stream)": func() (*Set, error) { return p.Stream("new.yaml", stream(newDocs...)) },
	}
	for name, parse := range inputs {
		s, err := parse()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := jsonOf(t, classified(old, s)); got != want {
			t.Errorf("%s: diff differs from the YAML one:\n%s", name, cmp.Diff(want, got))
		}
	}
}

func toJSON(t testing.TB, doc string) string {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

func TestDeterministic(t *testing.T) {
	p := newParser(t)
	oldDocs := []string{calicoNode, calicoConfig, typha, kubeControllers, secret}
	newDocs := []string{ipPool, replace(t, calicoNode, "quay.io/calico/node:v3.31.6", "quay.io/calico/node:v3.32.0"),
		replace(t, calicoConfig, "calico_backend: bird", "calico_backend: none"), replace(t, typha, "replicas: 1", "replicas: 3")}
	first := classified(mrSet(t, p, oldDocs...), mrSet(t, p, newDocs...))
	wantJSON, wantText := jsonOf(t, first), textOf(t, first)
	for i := 0; i < 20; i++ {
		// Reverse and rotate the input order; map iteration differs on every run too.
		o := append([]string(nil), oldDocs...)
		n := append([]string(nil), newDocs...)
		for j := 0; j < i; j++ {
			o = append(o[1:], o[0])
			n = append(n[1:], n[0])
		}
		d := classified(mrSet(t, p, o...), mrSet(t, p, n...))
		if got := jsonOf(t, d); got != wantJSON {
			t.Fatalf("run %d: JSON differs:\n%s", i, cmp.Diff(wantJSON, got))
		}
		if got := textOf(t, d); got != wantText {
			t.Fatalf("run %d: text differs:\n%s", i, cmp.Diff(wantText, got))
		}
	}
}
