package manifestdiff

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// unsetTemplate leaves every field that has a default unset: the image pull policy of a tagged, an
// untagged, a :latest, a digest-only and a tag-and-digest image; port protocols and (host network)
// host ports; fieldRef apiVersions; probe timings and handler defaults; volume modes and types; a
// volume without a source; the pod's DNS policy, restart policy, grace period, scheduler, service
// links and security context.
const unsetTemplate = `
    metadata:
      labels: {app: defaults}
    spec:
      hostNetwork: true
      serviceAccountName: some-account
      initContainers:
      - name: untagged
        image: registry.example/init
      containers:
      - name: tagged
        image: registry.example/app:v1.2.3
        ports:
        - {name: metrics, containerPort: 9091}
        env:
        - name: NODE
          valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
        livenessProbe: {exec: {command: ["true"]}}
        readinessProbe: {httpGet: {port: 8080}}
        startupProbe: {grpc: {port: 9090}}
        lifecycle:
          postStart: {httpGet: {port: 8080}}
          preStop: {exec: {command: ["true"]}}
      - name: latest
        image: registry.example:5000/app:latest
        readinessProbe: {tcpSocket: {port: 80}}
      - name: digest
        image: registry.example:5000/app@` + digest + `
      - name: tag-and-digest
        image: registry.example/app:v1@` + digest + `
      volumes:
      - {name: host, hostPath: {path: /run/xtables.lock}}
      - {name: secret, secret: {secretName: s}}
      - {name: config, configMap: {name: c}}
      - name: downward
        downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}
      - name: projected
        projected:
          sources:
          - serviceAccountToken: {path: token}
          - downwardAPI: {items: [{path: name, fieldRef: {fieldPath: metadata.name}}]}
      - {name: empty, emptyDir: {}}
      - {name: no-source}
`

// explicitTemplate sets each of those fields to a value other than its default: the defaults must
// not overwrite it.
const explicitTemplate = `
    metadata:
      labels: {app: defaults}
    spec:
      dnsPolicy: Default
      terminationGracePeriodSeconds: 5
      schedulerName: other-scheduler
      enableServiceLinks: false
      securityContext: {runAsUser: 1000}
      serviceAccount: deprecated-account
      containers:
      - name: tagged
        image: registry.example/app:latest
        imagePullPolicy: Never
        terminationMessagePath: /tmp/message
        terminationMessagePolicy: FallbackToLogsOnError
        ports:
        - {name: dns, containerPort: 53, protocol: UDP}
        env:
        - name: NODE
          valueFrom: {fieldRef: {apiVersion: v1, fieldPath: spec.nodeName}}
        livenessProbe: {exec: {command: ["true"]}, timeoutSeconds: 2, periodSeconds: 3, successThreshold: 1, failureThreshold: 4}
        readinessProbe: {httpGet: {port: 8443, path: /ready, scheme: HTTPS}, successThreshold: 2}
        startupProbe: {grpc: {port: 9090, service: health}}
      volumes:
      - {name: host, hostPath: {path: /run/xtables.lock, type: FileOrCreate}}
      - {name: secret, secret: {secretName: s, defaultMode: 0400}}
      - {name: config, configMap: {name: c, defaultMode: 0400}}
      - name: projected
        projected:
          defaultMode: 0400
          sources:
          - serviceAccountToken: {path: token, expirationSeconds: 7200}
`

// workloads are the workload kinds with the spec fields around the template: the update settings
// left unset, or set (with the template of the same variant).
func workloads(template string, explicit bool) []string {
	ds, deploy := "", ""
	if explicit {
		ds = "  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}\n  revisionHistoryLimit: 2\n"
		deploy = "  replicas: 3\n  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 100%}}\n  revisionHistoryLimit: 1\n  progressDeadlineSeconds: 60\n"
	}
	selector := "  selector: {matchLabels: {app: defaults}}\n"
	return []string{
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds}\nspec:\n" + selector + ds + "  template:" + template,
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds-on-delete}\nspec:\n" + selector + "  updateStrategy: {type: OnDelete}\n  template:" + template,
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: deploy}\nspec:\n" + selector + deploy + "  template:" + template,
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: deploy-recreate}\nspec:\n" + selector + "  strategy: {type: Recreate}\n  template:" + template,
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: sts}\nspec:\n" + selector + "  template:" + template,
		"apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec:\n" + selector + "  template:" + template,
		"apiVersion: v1\nkind: PodTemplate\nmetadata: {name: pt}\ntemplate:" + strings.ReplaceAll(template, "\n  ", "\n"),
	}
}

// TestDefaultsMatchAPIServer: the API server's stored form of each workload (server-side dry-run)
// compares equal to the manifest it was given, field for field, except where manifestdiff leaves
// the API server's value alone on purpose (a Deployment's or StatefulSet's replicas; a
// StatefulSet's or ReplicaSet's own spec fields, which never restart pods). If Kubernetes changes a
// default, or manifestdiff gets one wrong, the changed fields are listed.
func TestDefaultsMatchAPIServer(t *testing.T) {
	ctx := context.Background()
	ns := testenv.NewNamespace(t, cl, "defaults-", nil)
	p, err := manifestdiff.NewParser()
	if err != nil {
		t.Fatal(err)
	}
	// The stored objects are compared as the API server returned them: a default manifestdiff adds
	// that the API server does not shows up as a change.
	asStored, err := manifestdiff.NewParser()
	if err != nil {
		t.Fatal(err)
	}
	asStored.AsStored = true
	serverFilled := 0
	for _, variant := range []struct {
		name     string
		template string
		explicit bool
	}{{"unset", unsetTemplate, false}, {"explicit", explicitTemplate, true}} {
		for _, doc := range workloads(variant.template, variant.explicit) {
			written := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &written.Object); err != nil {
				t.Fatalf("%s: %v\n%s", variant.name, err, doc)
			}
			written.SetNamespace(ns)
			stored := written.DeepCopy()
			if err := cl.Create(ctx, stored, client.DryRunAll); err != nil {
				t.Fatalf("%s %s: dry-run create: %v", variant.name, written.GetKind(), err)
			}
			stored.SetAPIVersion(written.GetAPIVersion())
			stored.SetKind(written.GetKind())
			if !variant.explicit && !strings.Contains(mustJSON(t, stored), "imagePullPolicy:") {
				t.Fatalf("%s %s: the API server filled in no imagePullPolicy; the test no longer exercises the defaults\n%s", variant.name, written.GetKind(), mustJSON(t, stored))
			}
			if mustJSON(t, stored) != mustJSON(t, written) {
				serverFilled++
			}
			old, err := p.Objects([]client.Object{written})
			if err != nil {
				t.Fatal(err)
			}
			now, err := asStored.Objects([]client.Object{stored})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range manifestdiff.Compare(old, now).Objects {
				for _, c := range o.Changes {
					if leftAlone(written.GetKind(), c) {
						continue
					}
					t.Errorf("%s %s: %s %s: written %v, stored %v", variant.name, o.ID, c.Path, c.Op, jsonOf(t, c.Old), jsonOf(t, c.New))
				}
			}
		}
	}
	if serverFilled == 0 {
		t.Error("the API server stored every workload as written: nothing was defaulted, the test proves nothing")
	}
}

// leftAlone: the fields manifestdiff does not default on purpose.
func leftAlone(kind string, c *manifestdiff.FieldChange) bool {
	switch kind {
	case "Deployment", "StatefulSet":
		if c.Path == "spec.replicas" {
			return true // the resource manager keeps the live replicas when the manifest omits them
		}
	}
	switch kind {
	case "StatefulSet", "ReplicaSet":
		return c.HasPrefix("spec") && !c.HasPrefix("spec", "template")
	}
	return false
}

// mustJSON is the pod template of a workload (YAML).
func mustJSON(t *testing.T, u *unstructured.Unstructured) string {
	t.Helper()
	tmpl, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "template")
	if tmpl == nil {
		tmpl = u.Object["template"]
	}
	b, err := yaml.Marshal(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
