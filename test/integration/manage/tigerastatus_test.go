package manage

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/calico-pilot/calico-pilot/internal/manage"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// TestManageRetiresTigeraStatusAfterTakeover: once the state records a stopped tigera operator,
// the controller deletes the operator's TigeraStatus objects (nobody updates them any more), each
// with an Event on the Cluster; without that record it leaves them alone.
func TestManageRetiresTigeraStatusAfterTakeover(t *testing.T) {
	cl := newCluster(t)
	ctx := context.Background()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "tigerastatuses.operator.tigera.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "operator.tigera.io", Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "tigerastatuses", Singular: "tigerastatus", Kind: "TigeraStatus", ListKind: "TigeraStatusList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
	if err := cl.c.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the TigeraStatus CRD served", func() bool { return cl.tigeraStatuses() != nil })
	for _, name := range []string{"calico", "apiserver"} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("operator.tigera.io/v1")
		u.SetKind("TigeraStatus")
		u.SetName(name)
		if err := cl.c.Create(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	cl.startController(t, nil)
	cl.createCluster(clusterFile)
	cl.waitStatus("Available", available)
	if got := cl.tigeraStatuses(); len(got) != 2 {
		t.Fatalf("without a takeover the TigeraStatus objects are %v, want both kept", got)
	}

	// The state as a takeover leaves it: the operator recorded, stopped.
	st := cl.state()
	st.Operator = &standalone.OperatorState{Namespace: "tigera-operator", Name: "tigera-operator", Replicas: 1}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	cm.Namespace, cm.Name = standalone.Namespace, standalone.StateConfigMap
	cl.edit(cm, "test", func() { cm.Data[standalone.StateKey] = string(b) })
	cl.patchCluster(`{"cluster":{"serviceCIDR":"10.96.0.0/12"}}`)
	cl.waitStatus("Available at the new generation", available)
	waitFor(t, "the TigeraStatus objects deleted", func() bool { return len(cl.tigeraStatuses()) == 0 })
	waitFor(t, "an Event naming them", func() bool {
		for _, e := range cl.events(manage.EventTigeraStatusRetired) {
			if strings.HasPrefix(e, "deleted TigeraStatus apiserver, calico: the stopped tigera operator no longer updates them") {
				return true
			}
		}
		return false
	})
}

// tigeraStatuses are the names of the TigeraStatus objects (nil when they cannot be listed).
func (cl *cluster) tigeraStatuses() []string {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("operator.tigera.io/v1")
	list.SetKind("TigeraStatusList")
	if err := cl.c.List(context.Background(), list); err != nil {
		return nil
	}
	out := []string{}
	for _, u := range list.Items {
		out = append(out, u.GetName())
	}
	return out
}
