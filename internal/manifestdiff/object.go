package manifestdiff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
)

// ObjectID is the identity of an object as the resource manager sees it: the version is not part
// of it, so an apiVersion change of the same object is a field change, not a remove plus an add.
type ObjectID struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String is "<Kind>[.<group>] [<namespace>/]<name>", e.g. "DaemonSet.apps kube-system/calico-node"
// (manifest.ObjectKey, the one form of an object's identity).
func (id ObjectID) String() string {
	return manifest.ObjectKey(id.Group, id.Kind, id.Namespace, id.Name)
}

// Short is "<Kind> [<namespace>/]<name>", the form used in text output: String without the group.
func (id ObjectID) Short() string {
	return manifest.ObjectKey("", id.Kind, id.Namespace, id.Name)
}

// less orders IDs by kind, group, namespace and name.
func (id ObjectID) less(o ObjectID) bool {
	if id.Kind != o.Kind {
		return id.Kind < o.Kind
	}
	if id.Group != o.Group {
		return id.Group < o.Group
	}
	if id.Namespace != o.Namespace {
		return id.Namespace < o.Namespace
	}
	return id.Name < o.Name
}

// Object is one normalized object of a Set.
type Object struct {
	ID ObjectID
	// APIVersion is the object's apiVersion as written.
	APIVersion string
	// Source says where the object came from, e.g. `key "config.yaml" document 3`.
	Source string
	// Content is the normalized object (see Parser): nulls removed, status and server-owned
	// metadata removed, built-in kinds round-tripped through their Go types.
	Content map[string]any
}

// Set is a duplicate-free set of objects, the input of Compare.
type Set struct {
	objects map[ObjectID]*Object
	// Problems are documents that were skipped (the resource manager skips them too) or objects that
	// were kept with a caveat. A Set with problems is still complete in the sense that it holds what
	// the resource manager would apply.
	Problems []Problem
}

// Problem is one document or object that could not be taken as it is.
type Problem struct {
	// Source names the input: `key "config.yaml" document 3` (documents count from 1).
	Source string `json:"source"`
	// Message says what is wrong and what the resource manager does with it.
	Message string `json:"message"`
}

func (p Problem) String() string { return p.Source + ": " + p.Message }

// NewSet returns an empty set.
func NewSet() *Set { return &Set{objects: map[ObjectID]*Object{}} }

// Len is the number of objects.
func (s *Set) Len() int { return len(s.objects) }

// Get returns the object with this identity, or nil.
func (s *Set) Get(id ObjectID) *Object { return s.objects[id] }

// Objects returns the objects sorted by identity.
func (s *Set) Objects() []*Object {
	out := make([]*Object, 0, len(s.objects))
	for _, o := range s.objects {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID.less(out[j].ID) })
	return out
}

// add puts o into the set. A second object with the same identity replaces the first (the resource
// manager applies both in turn, so the last one wins) and is recorded as a problem.
func (s *Set) add(o *Object) {
	if prev, ok := s.objects[o.ID]; ok {
		s.Problems = append(s.Problems, Problem{Source: o.Source, Message: fmt.Sprintf(
			"%s is also defined by %s; the resource manager applies both in turn, so this later one is used", o.ID, prev.Source)})
	}
	s.objects[o.ID] = o
}

// Err returns nil when the set has no problems, or one error listing them.
func (s *Set) Err() error {
	if len(s.Problems) == 0 {
		return nil
	}
	msgs := make([]string, len(s.Problems))
	for i, p := range s.Problems {
		msgs[i] = p.String()
	}
	return fmt.Errorf("%d problem(s): %s", len(msgs), strings.Join(msgs, "; "))
}

// clusterScoped lists the kinds without a namespace that calico-pilot or the reference render, plus
// the usual built-in cluster-scoped kinds. Kinds defined by a CRD in the same input are looked up in
// that CRD instead. Anything else is taken as namespaced, which is also what the resource manager
// does for a kind it has no REST mapping for.
var clusterScoped = map[string]bool{
	"/Namespace": true, "/Node": true, "/PersistentVolume": true, "/ComponentStatus": true,
	"rbac.authorization.k8s.io/ClusterRole": true, "rbac.authorization.k8s.io/ClusterRoleBinding": true,
	"apiextensions.k8s.io/CustomResourceDefinition": true, "apiregistration.k8s.io/APIService": true,
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     true,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicy":          true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding":   true,
	"scheduling.k8s.io/PriorityClass":                               true, "storage.k8s.io/StorageClass": true, "storage.k8s.io/CSIDriver": true,
	"storage.k8s.io/CSINode": true, "storage.k8s.io/VolumeAttachment": true, "node.k8s.io/RuntimeClass": true,
	"networking.k8s.io/IngressClass": true, "certificates.k8s.io/CertificateSigningRequest": true,
	"flowcontrol.apiserver.k8s.io/FlowSchema": true, "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": true,
	"policy.networking.k8s.io/AdminNetworkPolicy": true, "policy.networking.k8s.io/BaselineAdminNetworkPolicy": true,
	// Calico v3.31.6 (docs/calico-crds.md): every kind but the four namespaced policies/sets.
	"crd.projectcalico.org/BGPConfiguration": true, "crd.projectcalico.org/BGPFilter": true,
	"crd.projectcalico.org/BGPPeer": true, "crd.projectcalico.org/BlockAffinity": true,
	"crd.projectcalico.org/CalicoNodeStatus": true, "crd.projectcalico.org/ClusterInformation": true,
	"crd.projectcalico.org/FelixConfiguration": true, "crd.projectcalico.org/GlobalNetworkPolicy": true,
	"crd.projectcalico.org/GlobalNetworkSet": true, "crd.projectcalico.org/HostEndpoint": true,
	"crd.projectcalico.org/IPAMBlock": true, "crd.projectcalico.org/IPAMConfig": true,
	"crd.projectcalico.org/IPAMHandle": true, "crd.projectcalico.org/IPPool": true,
	"crd.projectcalico.org/IPReservation": true, "crd.projectcalico.org/KubeControllersConfiguration": true,
	"crd.projectcalico.org/StagedGlobalNetworkPolicy": true, "crd.projectcalico.org/Tier": true,
}

// groupOf returns the group of an apiVersion ("apps/v1" -> "apps", "v1" -> "").
func groupOf(apiVersion string) string {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

func plainWord(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
		case (r >= '0' && r <= '9') || r == '-':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
