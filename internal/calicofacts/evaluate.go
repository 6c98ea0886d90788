package calicofacts

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Status is what a fact's check said for one shoot.
type Status string

// Statuses.
const (
	// StatusFound: the live or Kubernetes check found what the fact is about.
	StatusFound Status = "Found"
	// StatusClear: the check ran and found nothing (the fact does not apply to this shoot).
	StatusClear Status = "Clear"
	// StatusNotChecked: the check needs the shoot (a kubeconfig) or its Kubernetes version.
	StatusNotChecked Status = "NotChecked"
	// StatusAlways: the fact has no check and applies to every shoot that moves.
	StatusAlways Status = "Always"
)

// MaxObjects is how many affected objects a finding names; Count has them all.
const MaxObjects = 10

// Finding is one fact as it applies to one shoot's move.
type Finding struct {
	Fact
	// Status is what the check said.
	Status Status `json:"status"`
	// Objects are the affected objects ("Kind.group ns/name: why"), at most MaxObjects, sorted.
	Objects []string `json:"objects,omitempty"`
	// Count is how many objects are affected.
	Count int `json:"count,omitempty"`
	// Detail is the Kubernetes check's result.
	Detail string `json:"detail,omitempty"`
}

// Blocks is true when the finding refuses the move: a blocker whose check found something.
func (f Finding) Blocks() bool { return f.Severity == Blocker && f.Status == StatusFound }

// Objects are a shoot's objects by kind, as the live checks read them; nil means not read.
type Objects map[Kind][]map[string]any

// Evaluate applies the facts of a move to one shoot: kubernetes is its Kubernetes version ("" when
// unknown), objects its objects (nil when there is no access to the shoot). Findings keep the facts'
// order; facts whose check ran and found nothing come back with StatusClear.
func Evaluate(facts []Fact, to calicoversion.Release, kubernetes string, objects Objects) []Finding {
	out := make([]Finding, 0, len(facts))
	for _, f := range facts {
		fd := Finding{Fact: f, Status: StatusAlways}
		switch {
		case f.Kubernetes && kubernetes == "":
			fd.Status = StatusNotChecked
		case f.Kubernetes && to.SupportsKubernetes(kubernetes):
			fd.Status = StatusClear
		case f.Kubernetes:
			fd.Status = StatusFound
			fd.Detail = fmt.Sprintf("Calico %s supports Kubernetes %s, the shoot runs %s", to, to.Line().KubernetesRange(), kubernetes)
		case f.Live != nil && objects == nil:
			fd.Status = StatusNotChecked
		case f.Live != nil:
			fd.Objects, fd.Count = match(f.Live, objects)
			fd.Status = StatusClear
			if fd.Count > 0 {
				fd.Status = StatusFound
			}
		}
		out = append(out, fd)
	}
	return out
}

func match(c *Check, objects Objects) ([]string, int) {
	var all []string
	for _, k := range c.Kinds {
		for _, obj := range objects[k] {
			why := c.Match(obj)
			if why == "" {
				continue
			}
			id := name(obj)
			if ns, _ := lookup(obj, "metadata", "namespace"); ns != nil && ns != "" {
				id = fmt.Sprintf("%v/%s", ns, id)
			}
			all = append(all, fmt.Sprintf("%s %s: %s", k, id, why))
		}
	}
	sort.Strings(all)
	if len(all) > MaxObjects {
		return all[:MaxObjects], len(all)
	}
	return all, len(all)
}

// Kinds returns the kinds the facts' live checks list, each once, in a stable order.
func Kinds(facts []Fact) []Kind {
	seen := map[Kind]bool{}
	var out []Kind
	for _, f := range facts {
		if f.Live == nil {
			continue
		}
		for _, k := range f.Live.Kinds {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Gather lists, read only, the objects the facts' live checks look at. A kind the shoot does not
// serve (its CRD is not installed) has no objects; any other error is returned.
func Gather(ctx context.Context, c client.Reader, facts []Fact) (Objects, error) {
	out := Objects{}
	for _, k := range Kinds(facts) {
		var list unstructured.UnstructuredList
		list.SetAPIVersion(k.APIVersion)
		list.SetKind(k.Kind + "List")
		err := c.List(ctx, &list)
		switch {
		case meta.IsNoMatchError(err) || apierrors.IsNotFound(err):
			out[k] = []map[string]any{}
			continue
		case err != nil:
			return nil, fmt.Errorf("listing %s for the Calico move checks: %w", k, err)
		}
		items := make([]map[string]any, 0, len(list.Items))
		for _, it := range list.Items {
			items = append(items, it.Object)
		}
		out[k] = items
	}
	return out, nil
}

// Summary is a finding in one line, for tables and text reports.
func (f Finding) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s]", f.Title, f.ID)
	switch {
	case f.Detail != "":
		fmt.Fprintf(&b, ": %s", f.Detail)
	case f.Count > 0:
		fmt.Fprintf(&b, ": %d object(s)", f.Count)
	}
	return b.String()
}
