package calicooracle

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// Result is the outcome of one request of one row, made by one component.
type Result struct {
	Row       string
	Component string
	Verb      string
	Target    Target
	// Answer is the class of the API server's answer ("ok", "notFound", "alreadyExists",
	// "forbidden", or "error").
	Answer string
	// Problem is empty when Calico would be satisfied, otherwise what is wrong.
	Problem string
}

func (r Result) String() string {
	target := r.Target.Resource
	if r.Target.Name != "" {
		target += "/" + r.Target.Name
	}
	if r.Target.Namespace != "" {
		target = r.Target.Namespace + ":" + target
	}
	return fmt.Sprintf("%s: %s %s %s: %s", r.Row, r.Component, r.Verb, target, r.Problem)
}

// Replayer replays a table against an API server.
type Replayer struct {
	admin   *rest.Config
	adminCS kubernetes.Interface
	adminDC dynamic.Interface
	table   *Table
}

// NewReplayer builds a replayer that prepares the cluster with the admin config and makes every
// row's requests with tokens of the components' ServiceAccounts.
func NewReplayer(admin *rest.Config, t *Table) (*Replayer, error) {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, fmt.Errorf("building admin clientset: %w", err)
	}
	dc, err := dynamic.NewForConfig(admin)
	if err != nil {
		return nil, fmt.Errorf("building admin dynamic client: %w", err)
	}
	return &Replayer{admin: admin, adminCS: cs, adminDC: dc, table: t}, nil
}

// Replay creates the fixtures, then makes every row that applies to the deployment, in the table's
// order, as each running component, and returns every result (check Problem).
func (p *Replayer) Replay(ctx context.Context, d *Deployment) ([]Result, error) {
	if err := p.createFixtures(ctx); err != nil {
		return nil, err
	}
	clients := map[string]dynamic.Interface{}
	names := make([]string, 0, len(d.Components))
	for name := range d.Components {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c, err := p.clientFor(ctx, d.namespace(), d.Components[name].ServiceAccount)
		if err != nil {
			return nil, fmt.Errorf("component %s: %w", name, err)
		}
		clients[name] = c
	}
	var results []Result
	for i := range p.table.Requests {
		r := &p.table.Requests[i]
		for _, component := range r.Components {
			if !d.Applies(r, component) {
				continue
			}
			for _, verb := range r.Verbs {
				for _, tg := range r.Targets() {
					if r.OwnNamespace {
						tg.Namespace = d.namespace()
					}
					res := Result{Row: r.ID, Component: component, Verb: verb, Target: tg}
					p.do(ctx, clients[component], r, verb, tg, &res)
					results = append(results, res)
				}
			}
		}
	}
	return results, nil
}

// clientFor returns a client authenticated with a fresh token of the ServiceAccount, requested from
// the API server as the kubelet does for a pod (TokenRequest).
func (p *Replayer) clientFor(ctx context.Context, namespace, serviceAccount string) (dynamic.Interface, error) {
	tr, err := p.adminCS.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, serviceAccount, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("requesting a token of ServiceAccount %s/%s: %w", namespace, serviceAccount, err)
	}
	cfg := rest.AnonymousClientConfig(p.admin)
	cfg.BearerToken = tr.Status.Token
	return dynamic.NewForConfig(cfg)
}

func (p *Replayer) createFixtures(ctx context.Context) error {
	for _, o := range p.table.FixtureObjects() {
		gvr, err := gvrOf(o)
		if err != nil {
			return err
		}
		_, err = p.adminDC.Resource(gvr).Namespace(o.GetNamespace()).Create(ctx, o, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating fixture %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

// Reset deletes what a replay wrote: every object of the (cluster-scoped) Calico resources the table
// writes, and the fixtures, so that the next replay starts from a new cluster's state.
func (p *Replayer) Reset(ctx context.Context) error {
	// Resource and namespace ("" for cluster-scoped resources) of every Calico object written.
	calicoResources := map[[2]string]bool{}
	for _, r := range p.table.Requests {
		if r.Group == "crd.projectcalico.org" && slices.ContainsFunc(r.Verbs, func(v string) bool { return v == "create" || v == "update" }) {
			for _, tg := range r.Targets() {
				calicoResources[[2]string{tg.Resource, tg.Namespace}] = true
			}
		}
	}
	for _, o := range p.table.FixtureObjects() {
		if gvk := o.GroupVersionKind(); gvk.Group == "crd.projectcalico.org" {
			if gvr, err := gvrOf(o); err == nil {
				calicoResources[[2]string{gvr.Resource, o.GetNamespace()}] = true
			}
		}
	}
	for res := range calicoResources {
		gvr := schema.GroupVersionResource{Group: "crd.projectcalico.org", Version: "v1", Resource: res[0]}
		if err := p.adminDC.Resource(gvr).Namespace(res[1]).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			return fmt.Errorf("deleting all %s: %w", res[0], err)
		}
	}
	for _, o := range p.table.FixtureObjects() {
		gvr, err := gvrOf(o)
		if err != nil {
			return err
		}
		err = p.adminDC.Resource(gvr).Namespace(o.GetNamespace()).Delete(ctx, o.GetName(), metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting fixture %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

func gvrOf(o *unstructured.Unstructured) (schema.GroupVersionResource, error) {
	gvk := o.GroupVersionKind()
	resource := map[string]string{
		"Node": "nodes", "Pod": "pods", "Service": "services", "ServiceAccount": "serviceaccounts",
		"IPPool": "ippools", "CalicoNodeStatus": "caliconodestatuses", "IPAMBlock": "ipamblocks", "IPAMHandle": "ipamhandles",
		"NetworkPolicy": "networkpolicies",
	}[gvk.Kind]
	if resource == "" {
		return schema.GroupVersionResource{}, fmt.Errorf("fixture kind %s has no resource name here (add it to gvrOf)", gvk.Kind)
	}
	return gvk.GroupVersion().WithResource(resource), nil
}

// do makes one request and records its answer and any problem in res.
func (p *Replayer) do(ctx context.Context, c dynamic.Interface, r *Request, verb string, tg Target, res *Result) {
	gv, err := schema.ParseGroupVersion(r.APIVersion())
	if err != nil {
		res.Answer, res.Problem = "error", err.Error()
		return
	}
	ri := c.Resource(gv.WithResource(tg.Resource)).Namespace(tg.Namespace)
	var written bool
	switch verb {
	case "get", "list", "watch":
		res.Problem, err = readRequest(ctx, ri, r, verb, tg)
	default:
		written, err = writeRequest(ctx, ri, r, verb, tg)
	}
	res.Answer = classify(err)
	if res.Problem != "" {
		return
	}
	if !r.Tolerates(Answer(res.Answer)) {
		res.Problem = fmt.Sprintf("answered %s, Calico tolerates %v (%s: %s)", describe(err), r.Answers, r.Step, r.Need)
		return
	}
	if written && r.ReadBack {
		res.Problem = p.readBack(ctx, gv.WithResource(tg.Resource), tg, r.Body)
	}
}

// subresources is the request's subresource as the dynamic client's variadic argument.
func subresources(r *Request) []string {
	if r.Subresource == "" {
		return nil
	}
	return []string{r.Subresource}
}

// readRequest makes a get, list or watch request; a get that succeeds reports the first of the
// request's expected fields the object lacks as the problem.
func readRequest(ctx context.Context, ri dynamic.ResourceInterface, r *Request, verb string, tg Target) (problem string, err error) {
	switch verb {
	case "get":
		var obj *unstructured.Unstructured
		obj, err = ri.Get(ctx, tg.Name, metav1.GetOptions{}, subresources(r)...)
		if err == nil {
			problem = expectFields(obj, r.ExpectFields)
		}
	case "list":
		_, err = ri.List(ctx, metav1.ListOptions{LabelSelector: r.LabelSelector, FieldSelector: r.FieldSelector, Limit: 50})
	case "watch":
		var w interface{ Stop() }
		w, err = ri.Watch(ctx, metav1.ListOptions{LabelSelector: r.LabelSelector, FieldSelector: r.FieldSelector, TimeoutSeconds: ptr.To[int64](1)})
		if err == nil {
			w.Stop()
		}
	}
	return problem, err
}

// writeRequest makes a create, update, patch or delete request; written is true when it stored the
// request's body in the object itself (not a subresource, for a create).
func writeRequest(ctx context.Context, ri dynamic.ResourceInterface, r *Request, verb string, tg Target) (written bool, err error) {
	sub := subresources(r)
	switch verb {
	case "create":
		obj := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(r.Body)}
		if obj.GetAPIVersion() == "" {
			obj.SetAPIVersion(r.APIVersion())
			obj.SetKind(kindOf(tg.Resource))
		}
		obj.SetName(tg.Name)
		_, err = ri.Create(ctx, obj, metav1.CreateOptions{}, sub...)
		return err == nil && r.Subresource == "", err
	case "update":
		// Calico reads the object, changes it and writes it back.
		obj, err := ri.Get(ctx, tg.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		obj.Object = merge(obj.Object, runtime.DeepCopyJSON(r.Body))
		_, err = ri.Update(ctx, obj, metav1.UpdateOptions{}, sub...)
		return err == nil, err
	case "patch":
		pt := types.MergePatchType
		if r.PatchType == "strategic" {
			pt = types.StrategicMergePatchType
		}
		body, err := json.Marshal(r.Body)
		if err != nil {
			return false, err
		}
		_, err = ri.Patch(ctx, tg.Name, pt, body, metav1.PatchOptions{}, sub...)
		return err == nil, err
	case "delete":
		return false, ri.Delete(ctx, tg.Name, metav1.DeleteOptions{})
	}
	return false, nil
}

// readBack reads the object as admin and reports the first field of body not stored as written.
func (p *Replayer) readBack(ctx context.Context, gvr schema.GroupVersionResource, tg Target, body map[string]any) string {
	stored, err := p.adminDC.Resource(gvr).Namespace(tg.Namespace).Get(ctx, tg.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Sprintf("reading back: %v", err)
	}
	want := normalize(body)
	delete(want, "apiVersion")
	delete(want, "kind")
	if diff := contains(normalize(stored.Object), want, ""); diff != "" {
		return "stored differently than written (a field pruned or changed by the schema): " + diff
	}
	return ""
}

func expectFields(obj *unstructured.Unstructured, fields map[string]any) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		got, found, _ := unstructured.NestedFieldNoCopy(obj.Object, strings.Split(k, ".")...)
		if !found || !reflect.DeepEqual(normalize(map[string]any{"v": got}), normalize(map[string]any{"v": fields[k]})) {
			return fmt.Sprintf("%s is %v (present: %t), Calico needs %v", k, got, found, fields[k])
		}
	}
	return ""
}

// merge sets every field of patch in obj, keeping explicit nulls (Calico sends them).
func merge(obj, patch map[string]any) map[string]any {
	for k, v := range patch {
		if pm, ok := v.(map[string]any); ok {
			if om, ok := obj[k].(map[string]any); ok {
				obj[k] = merge(om, pm)
				continue
			}
		}
		obj[k] = v
	}
	return obj
}

// contains reports where stored lacks a field of want or holds another value: maps are compared
// key by key (an explicit null must be stored as null), lists element by element.
func contains(stored, want any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		s, ok := stored.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s is %v, want an object", path, stored)
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sv, present := s[k]
			if !present {
				return fmt.Sprintf("%s.%s was written as %v and is not stored", path, k, w[k])
			}
			if d := contains(sv, w[k], path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		s, ok := stored.([]any)
		if !ok || len(s) != len(w) {
			return fmt.Sprintf("%s is %v, written as %v", path, stored, want)
		}
		for i := range w {
			if d := contains(s[i], w[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(stored, want) {
			return fmt.Sprintf("%s is %v, written as %v", path, stored, want)
		}
		return ""
	}
}

// normalize gives numbers one representation (float64) by a JSON round trip.
func normalize(m map[string]any) map[string]any {
	raw, err := json.Marshal(m)
	if err != nil {
		return m
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return m
	}
	return out
}

func classify(err error) string {
	switch {
	case err == nil:
		return string(AnswerOK)
	case apierrors.IsForbidden(err):
		return "forbidden"
	case apierrors.IsNotFound(err):
		return string(AnswerNotFound)
	case apierrors.IsAlreadyExists(err):
		return string(AnswerAlreadyExists)
	default:
		return "error"
	}
}

func describe(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// kindOf is the kind of a resource a create row writes without apiVersion/kind in its body.
func kindOf(resource string) string {
	kinds := map[string]string{
		"ippools": "IPPool", "clusterinformations": "ClusterInformation", "tiers": "Tier",
		"felixconfigurations": "FelixConfiguration", "ipamconfigs": "IPAMConfig", "blockaffinities": "BlockAffinity",
		"ipamblocks": "IPAMBlock", "ipamhandles": "IPAMHandle", "kubecontrollersconfigurations": "KubeControllersConfiguration",
		"hostendpoints": "HostEndpoint", "caliconodestatuses": "CalicoNodeStatus", "networkpolicies": "NetworkPolicy",
	}
	return kinds[resource]
}
