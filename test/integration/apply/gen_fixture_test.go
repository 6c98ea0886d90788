package apply

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

var (
	generatorOrder []schema.GroupVersionKind
	generatorKeys  []client.ObjectKey
)

// Throwaway: writes testdata/tigera-operator-v1.40/*.yaml from the Go fixture.
func TestGenerateOperatorFixtureYAML(t *testing.T) {
	if os.Getenv("GENERATE_FIXTURE") == "" {
		t.Skip()
	}
	cl := newCluster(t)
	cl.kubeadm()
	generatorOrder, generatorKeys = nil, nil
	in := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	caCert, caKey := string(in.CA.CertPEM), string(in.CA.KeyPEM)
	var apiCert string
	files := map[string][]string{}
	var order []string
	for i, gvk := range generatorOrder {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := cl.c.Get(ctx, generatorKeys[i], u); err != nil {
			t.Fatal(err)
		}
		md := u.Object["metadata"].(map[string]any)
		for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink"} {
			delete(md, k)
		}
		if a, ok := md["annotations"].(map[string]any); ok {
			delete(a, "deprecated.daemonset.template.generation")
			if _, ok := a["certificates.operator.tigera.io/expiry"]; ok {
				a["certificates.operator.tigera.io/expiry"] = "EXPIRY"
			}
			if len(a) == 0 {
				delete(md, "annotations")
			}
		}
		if refs, ok := md["ownerReferences"].([]any); ok {
			for _, r := range refs {
				delete(r.(map[string]any), "uid")
			}
		}
		if gvk.Group != "operator.tigera.io" {
			delete(u.Object, "status")
		}
		unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
		switch gvk.Kind {
		case "Namespace":
			unstructured.RemoveNestedField(u.Object, "metadata", "labels", "kubernetes.io/metadata.name")
			if l, _, _ := unstructured.NestedMap(u.Object, "metadata", "labels"); len(l) == 0 {
				unstructured.RemoveNestedField(u.Object, "metadata", "labels")
			}
			delete(u.Object, "spec")
		case "Service":
			unstructured.RemoveNestedField(u.Object, "spec", "clusterIP")
			unstructured.RemoveNestedField(u.Object, "spec", "clusterIPs")
		case "Secret":
			data := u.Object["data"].(map[string]any)
			for k, v := range data {
				b, _ := base64.StdEncoding.DecodeString(v.(string))
				switch {
				case string(b) == caCert:
					data[k] = "CA-CERT-PEM"
				case string(b) == caKey:
					data[k] = "CA-KEY-PEM"
				case k == "tls.crt":
					if u.GetName() == "calico-apiserver-certs" {
						apiCert = string(b)
					}
					data[k] = "LEAF-CERT-PEM"
				case k == "tls.key":
					data[k] = "LEAF-KEY-PEM"
				}
			}
		case "ConfigMap":
			if data, ok := u.Object["data"].(map[string]any); ok {
				for k, v := range data {
					if v == caCert {
						data[k] = "CA-CERT-PEM"
					}
				}
			}
		case "DaemonSet":
			if aliases, ok, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "hostAliases"); ok {
				for _, a := range aliases {
					a.(map[string]any)["ip"] = "GOLDMANE-CLUSTER-IP"
				}
				_ = unstructured.SetNestedSlice(u.Object, aliases, "spec", "template", "spec", "hostAliases")
			}
		}
		if gvk.Kind == "APIService" {
			b, _ := base64.StdEncoding.DecodeString(u.Object["spec"].(map[string]any)["caBundle"].(string))
			if string(b) != apiCert+caCert {
				t.Fatal("caBundle is not the api cert and the CA")
			}
			u.Object["spec"].(map[string]any)["caBundle"] = "APISERVICE-CA-BUNDLE"
		}
		b, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		file := fileFor(i, gvk)
		if _, ok := files[file]; !ok {
			order = append(order, file)
		}
		files[file] = append(files[file], string(b))
	}
	dir := "testdata/tigera-operator-v1.40"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range order {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("---\n"+strings.Join(files[f], "---\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fileFor(i int, gvk schema.GroupVersionKind) string {
	switch {
	case i < 5:
		return "00-operator-crds.yaml"
	case i < 12:
		return "01-tigera-operator.yaml"
	case i < 16:
		return "02-custom-resources.yaml"
	case gvk.Kind == "Namespace" || gvk.Kind == "ServiceAccount":
		return "03-namespace-serviceaccounts.yaml"
	case gvk.Group == "rbac.authorization.k8s.io":
		return "04-rbac.yaml"
	case gvk.Kind == "Secret" || gvk.Kind == "ConfigMap":
		return "05-secrets-configmaps.yaml"
	case gvk.Kind == "Service" || gvk.Kind == "PodDisruptionBudget" || gvk.Kind == "NetworkPolicy" || gvk.Kind == "APIService" || gvk.Kind == "CSIDriver":
		return "06-services-policies-apis.yaml"
	case gvk.Group == "crd.projectcalico.org" || gvk.Kind == "TigeraStatus":
		return "07-calico-resources.yaml"
	default:
		return "08-workloads.yaml"
	}
}
