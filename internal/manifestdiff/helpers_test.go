package manifestdiff

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// calicoNode is a small calico-node DaemonSet in the shape both the reference and calico-pilot render.
const calicoNode = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: calico-node
  namespace: kube-system
  labels: {k8s-app: calico-node}
  annotations:
    resources.gardener.cloud/preserve-resources: "true"
spec:
  selector: {matchLabels: {k8s-app: calico-node}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}
  template:
    metadata:
      labels: {k8s-app: calico-node}
      annotations: {checksum/configmap-calico: aaaa}
    spec:
      serviceAccountName: calico-node
      containers:
      - name: calico-node
        image: quay.io/calico/node:v3.31.6
        env:
        - {name: DATASTORE_TYPE, value: kubernetes}
        - {name: FELIX_IPINIPENABLED, value: "true"}
        - name: CALICO_NETWORKING_BACKEND
          valueFrom: {configMapKeyRef: {name: calico-config, key: calico_backend}}
        resources: {requests: {cpu: 250m, memory: 100Mi}}
        volumeMounts:
        - {name: lib-modules, mountPath: /lib/modules, readOnly: true}
      volumes:
      - name: lib-modules
        hostPath: {path: /lib/modules}
`

const calicoConfig = `apiVersion: v1
kind: ConfigMap
metadata: {name: calico-config, namespace: kube-system}
data:
  calico_backend: bird
  veth_mtu: "0"
`

const typha = `apiVersion: apps/v1
kind: Deployment
metadata: {name: calico-typha-deploy, namespace: kube-system}
spec:
  replicas: 1
  selector: {matchLabels: {k8s-app: calico-typha}}
  template:
    metadata: {labels: {k8s-app: calico-typha}}
    spec:
      containers:
      - name: calico-typha
        image: quay.io/calico/typha:v3.31.6
        ports: [{name: calico-typha, containerPort: 5473, protocol: TCP}]
`

const kubeControllers = `apiVersion: apps/v1
kind: Deployment
metadata: {name: calico-kube-controllers, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: calico-kube-controllers}}
  template:
    metadata: {labels: {k8s-app: calico-kube-controllers}}
    spec:
      containers:
      - {name: calico-kube-controllers, image: quay.io/calico/kube-controllers:v3.31.6}
`

const ipPool = `apiVersion: crd.projectcalico.org/v1
kind: IPPool
metadata: {name: default-ipv4-ippool}
spec:
  cidr: 100.96.0.0/11
  blockSize: 26
  ipipMode: Always
  vxlanMode: Never
  natOutgoing: true
  nodeSelector: all()
`

const secret = `apiVersion: v1
kind: Secret
metadata: {name: calico-etcd-secrets, namespace: kube-system}
type: Opaque
data:
  token: c2VjcmV0LW9uZQ==
`

// stream joins YAML documents into one stream.
func stream(docs ...string) []byte {
	return []byte("---\n" + strings.Join(docs, "\n---\n"))
}

// replace replaces old by new in s exactly once, failing the test otherwise.
func replace(t testing.TB, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q occurs %d times", old, strings.Count(s, old))
	}
	return strings.Replace(s, old, new, 1)
}

func newParser(t testing.TB) *Parser {
	t.Helper()
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mrSet parses docs as the single key of a ManagedResource secret and requires no problems.
func mrSet(t testing.TB, p *Parser, docs ...string) *Set {
	t.Helper()
	s, err := p.ManagedResourceData(map[string][]byte{"config.yaml": stream(docs...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// classified compares and classifies with the default rules.
// diffCase is a table row of the diff tests: the documents of two ManagedResource sets and the
// classified diff's lines.
type diffCase struct {
	name     string
	old, new []string
	want     []string
}

// runDiffCases runs every case as a subtest: the classified diff of old to new must read want.
func runDiffCases(t *testing.T, cases []diffCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newParser(t)
			d := classified(mrSet(t, p, tc.old...), mrSet(t, p, tc.new...))
			if diff := cmp.Diff(tc.want, lines(d)); diff != "" {
				t.Errorf("diff (-want +got):\n%s", diff)
			}
		})
	}
}

func classified(old, new *Set) *Diff {
	d := Compare(old, new)
	DefaultClassifier().Classify(d)
	return d
}

// jsonOf and textOf are the diff's JSON and text output.
func jsonOf(t testing.TB, d *Diff) string { return written(t, d.WriteJSON) }

func textOf(t testing.TB, d *Diff) string { return written(t, d.WriteText) }

// written is what write writes.
func written(t testing.TB, write func(io.Writer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
