package testenv

import (
	"context"
	"fmt"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/render"
)

// RenderedCalicoCRDsFor is RenderedCalicoCRDs for Calico release v: the CRDs calico-pilot renders
// into a shoot whose CRDs are v's (its line's set).
func RenderedCalicoCRDsFor(v calicoversion.Release) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	defs, err := crds.CustomResourceDefinitionsFor(v.CRDSet())
	if err != nil {
		return nil, fmt.Errorf("loading Calico %s CRDs: %w", v, err)
	}
	objs, err := render.CRDs(defs)
	if err != nil {
		return nil, fmt.Errorf("rendering CRDs: %w", err)
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(objs))
	for _, o := range objs {
		crd, ok := o.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			return nil, fmt.Errorf("render.CRDs returned a %T", o)
		}
		out = append(out, crd)
	}
	return out, nil
}

// InstallCalicoCRDs puts the CRDs of Calico release v (its line's set) on the control plane as the resource manager
// does when a shoot's CRDs change line: each one created, or updated in place (objects stored under
// the previous schema stay), none deleted. It waits until every CRD is established and the API
// server's discovery shows each one's status subresource as v's schema has it.
func (c *ControlPlane) InstallCalicoCRDs(ctx context.Context, v calicoversion.Release) error {
	want, err := RenderedCalicoCRDsFor(v)
	if err != nil {
		return err
	}
	cs, err := apiextensionsclient.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	api := cs.ApiextensionsV1().CustomResourceDefinitions()
	for _, crd := range want {
		cur, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = api.Create(ctx, crd, metav1.CreateOptions{})
		case err == nil:
			cur.Spec, cur.Labels, cur.Annotations = crd.Spec, crd.Labels, crd.Annotations
			_, err = api.Update(ctx, cur, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("installing CRD %s of Calico %s: %w", crd.Name, v, err)
		}
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, crd := range want {
			cur, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			established := slices.ContainsFunc(cur.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
				return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
			})
			if !established {
				return false, nil
			}
			for _, ver := range crd.Spec.Versions {
				if !ver.Served {
					continue
				}
				list, err := dc.ServerResourcesForGroupVersion(crd.Spec.Group + "/" + ver.Name)
				if err != nil {
					return false, nil
				}
				hasStatus := slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool {
					return r.Name == crd.Spec.Names.Plural+"/status"
				})
				if hasStatus != (ver.Subresources != nil && ver.Subresources.Status != nil) {
					return false, nil
				}
			}
		}
		return true, nil
	})
}
