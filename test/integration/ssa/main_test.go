package ssa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/ssa"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// manager is the field manager the tests apply as: calico-pilot's.
const manager = standalone.FieldManager

type env struct {
	c   client.Client
	cmp *ssa.Comparer
}

// newEnv starts a control plane (stopped when tb ends) with an uncached client of the production
// scheme's kinds.
func newEnv(tb testing.TB) *env {
	tb.Helper()
	cp, err := testenv.Start(testenv.Options{})
	if errors.Is(err, testenv.ErrNoBinaries) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cp.Stop() })
	c, err := cp.NewClient(clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme)
	if err != nil {
		tb.Fatal(err)
	}
	cmp, err := ssa.NewComparer()
	if err != nil {
		tb.Fatal(err)
	}
	return &env{c: c, cmp: cmp}
}

// variant is one render of a plain cluster.
type variant struct {
	layout  layout.Layout
	typha   bool
	release calicoversion.Release
}

func (v variant) String() string {
	name := "kube-system"
	if v.layout.Namespace != layout.KubeSystem().Namespace {
		name = v.layout.Namespace
	}
	typha := "typha"
	if !v.typha {
		typha = "no-typha"
	}
	return name + "/" + typha + "/" + v.release.Name()
}

// variants are both layouts, Typha on and off, at the newest release of every Calico line.
func variants() []variant {
	var out []variant
	for _, line := range calicoversion.Default().Lines() {
		for _, lay := range []layout.Layout{layout.KubeSystem(), layout.TigeraOperator()} {
			for _, typha := range []bool{true, false} {
				out = append(out, variant{layout: lay, typha: typha, release: line.Newest()})
			}
		}
	}
	return out
}

// render renders v as `calico-pilot apply` does for a plain cluster (a kubeadm-like IPv4 cluster
// with kube-proxy): the pipeline's manifest without the IP pools (internal/pools creates those),
// each object as apply sends it. The NetworkConfig is rendertest's "default" or "typha-disabled".
func render(tb testing.TB, v variant) []*unstructured.Unstructured {
	tb.Helper()
	name := "default"
	if !v.typha {
		name = "typha-disabled"
	}
	sc, err := rendertest.ScenarioNamed(name)
	if err != nil {
		tb.Fatal(err)
	}
	var raw []byte
	if sc.ProviderConfig != "" {
		raw = rendertest.ShootOf(sc).Spec.Networking.ProviderConfig.Raw
	}
	facts := standalone.Facts{
		KubernetesVersion: "1.33.0",
		PodCIDRs:          mustPrefixes("10.244.0.0/16"),
		ServiceCIDR:       "10.96.0.0/12",
		NodeCIDR:          "10.0.0.0/16",
		IPFamilies:        []string{"IPv4"},
		KubeProxyEnabled:  true,
		KubeProxyMode:     "iptables",
	}
	shoot := facts.Shoot(raw)
	cfg, errs := pipeline.ShootConfig(shoot)
	if len(errs) > 0 {
		tb.Fatalf("config of %s: %v", v, errs.ToAggregate())
	}
	vector, err := imagevector.LoadVector(nil)
	if err != nil {
		tb.Fatal(err)
	}
	dep := calicoversion.Steady(v.release)
	images, err := imagevector.NewResolver(vector).ForShoot(facts.KubernetesVersion, dep)
	if err != nil {
		tb.Fatal(err)
	}
	settings := values.Settings{Images: images, Calico: dep, Layout: v.layout}
	if v.layout.Namespace == layout.TigeraOperator().Namespace {
		tls := layout.TigeraOperatorTyphaTLS()
		settings.TyphaTLS = &tls
	}
	enc, err := pipeline.NewEncoder()
	if err != nil {
		tb.Fatal(err)
	}
	res, errs, err := enc.Render(pipeline.Source{Shoot: facts.Shoot(nil), SeedNamespace: "no-seed"}, cfg, settings)
	if err != nil || len(errs) > 0 {
		tb.Fatalf("rendering %s: %v %v", v, err, errs.ToAggregate())
	}
	var out []*unstructured.Unstructured
	for _, doc := range res.Manifest.Docs() {
		if doc.Kind == "IPPool" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(doc.JSON, &u.Object); err != nil {
			tb.Fatalf("decoding %s: %v", doc.ID(), err)
		}
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		out = append(out, u)
	}
	return out
}

// apply server-side applies a copy of u as fieldManager with force and returns the object the API
// server answers with.
func (e *env) apply(ctx context.Context, u *unstructured.Unstructured, fieldManager string) (*unstructured.Unstructured, error) {
	sent := u.DeepCopy()
	if err := e.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(sent), client.FieldOwner(fieldManager), client.ForceOwnership); err != nil {
		return nil, fmt.Errorf("applying %s: %w", id(u), err)
	}
	return sent, nil
}

func (e *env) get(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(u.GroupVersionKind())
	if err := e.c.Get(ctx, client.ObjectKeyFromObject(u), live); err != nil {
		return nil, fmt.Errorf("reading %s: %w", id(u), err)
	}
	return live, nil
}

// applyAll applies objs in order (CRDs first, waiting until they are Established and their status
// settled, so their resourceVersions move only by what the tests do), creating namespaces the
// objects need.
func (e *env) applyAll(ctx context.Context, tb testing.TB, objs []*unstructured.Unstructured) {
	tb.Helper()
	for _, u := range objs {
		if ns := u.GetNamespace(); ns != "" {
			nsObj := &unstructured.Unstructured{}
			nsObj.SetAPIVersion("v1")
			nsObj.SetKind("Namespace")
			nsObj.SetName(ns)
			if err := e.c.Create(ctx, nsObj); err != nil && !apierrors.IsAlreadyExists(err) {
				tb.Fatal(err)
			}
		}
	}
	for _, crds := range []bool{true, false} {
		for _, u := range objs {
			if (u.GetKind() == "CustomResourceDefinition") != crds {
				continue
			}
			if _, err := e.apply(ctx, u, manager); err != nil {
				tb.Fatal(err)
			}
		}
		if crds {
			e.waitEstablished(ctx, tb, objs)
		}
	}
}

func (e *env) waitEstablished(ctx context.Context, tb testing.TB, objs []*unstructured.Unstructured) {
	tb.Helper()
	for _, u := range objs {
		if u.GetKind() != "CustomResourceDefinition" {
			continue
		}
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := e.c.Get(ctx, client.ObjectKeyFromObject(u), crd); err != nil {
				return false, err
			}
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			tb.Fatalf("CRD %s not established: %v", u.GetName(), err)
		}
	}
}

func id(u *unstructured.Unstructured) string {
	s := u.GetKind() + " "
	if ns := u.GetNamespace(); ns != "" {
		s += ns + "/"
	}
	return s + u.GetName()
}

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(ss))
	for _, s := range ss {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}
