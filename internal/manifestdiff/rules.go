package manifestdiff

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
)

// workloadKinds are the apps/v1 kinds whose pod template changes start a rollout.
var workloadKinds = map[string]bool{"DaemonSet": true, "Deployment": true, "StatefulSet": true, "ReplicaSet": true}

func isWorkload(id ObjectID) bool { return id.Group == "apps" && workloadKinds[id.Kind] }

// metaValue returns metadata.<field>[key] of obj as a string, if present.
func metaValue(obj *Object, field, key string) (string, bool) {
	if obj == nil {
		return "", false
	}
	meta, _ := obj.Content["metadata"].(map[string]any)
	m, _ := meta[field].(map[string]any)
	v, ok := m[key].(string)
	return v, ok
}

// truthy is strconv.ParseBool's true, which the resource manager uses for ignore and keep-object.
func truthy(obj *Object, key string) bool {
	v, ok := metaValue(obj, "annotations", key)
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// literalTrue is the exact value "true", which the resource manager requires for preserve-*.
func literalTrue(obj *Object, key string) bool {
	v, ok := metaValue(obj, "annotations", key)
	return ok && v == "true"
}

// lookup returns the value at a path of map keys; not found when a step is missing or not an object
// (the error NestedFieldNoCopy returns then says only that).
func lookup(m map[string]any, keys ...string) (any, bool) {
	v, found, err := unstructured.NestedFieldNoCopy(m, keys...)
	return v, found && err == nil
}

func lookupString(obj *Object, keys ...string) string {
	if obj == nil {
		return ""
	}
	v, _ := lookup(obj.Content, keys...)
	s, _ := v.(string)
	return s
}

// ignoredObjectGate: objects the resource manager ignores or has released.
var ignoredObjectGate = Rule{
	Name: "ignored-object",
	Object: func(_ *Diff, o *ObjectDiff) []Impact {
		switch {
		case o.Op == OpAdded && lookupMode(o.New) == resourcesv1alpha1.ModeIgnore:
			return notApplied("the object has resources.gardener.cloud/mode: Ignore, so the resource manager never creates it")
		case o.Op == OpRemoved && lookupMode(o.Old) == resourcesv1alpha1.ModeIgnore:
			return notApplied("the deployed object had resources.gardener.cloud/mode: Ignore: the resource manager had already released it and leaves it in the cluster")
		}
		return nil
	},
	Change: func(_ *Diff, o *ObjectDiff, c *FieldChange) []Impact {
		switch {
		case lookupMode(o.New) == resourcesv1alpha1.ModeIgnore:
			return notApplied("the object now has resources.gardener.cloud/mode: Ignore: the resource manager releases it and stops updating it; the live object keeps its current content")
		case truthy(o.New, resourcesv1alpha1.AnnotationIgnore):
			return notApplied("the object has resources.gardener.cloud/ignore: the resource manager creates it if missing but never updates it")
		}
		return nil
	},
}

func lookupMode(obj *Object) string {
	v, _ := metaValue(obj, "annotations", resourcesv1alpha1.AnnotationMode)
	return v
}

func notApplied(reason string) []Impact {
	return []Impact{{Class: ClassNotApplied, Reason: reason}}
}

// keptObjectGate: removed objects the resource manager does not delete.
var keptObjectGate = Rule{
	Name: "kept-object",
	Object: func(_ *Diff, o *ObjectDiff) []Impact {
		if o.Op != OpRemoved {
			return nil
		}
		if truthy(o.Old, resourcesv1alpha1.AnnotationKeepObject) {
			return notApplied("the deployed object has resources.gardener.cloud/keep-object: the resource manager stops managing it but does not delete it (it reads the annotation from the live object, which carries the deployed annotations)")
		}
		if (o.ID.Kind == "ConfigMap" || o.ID.Kind == "Secret") && o.ID.Group == "" {
			if v, _ := metaValue(o.Old, "labels", resourcesv1alpha1.LabelGarbageCollectableReference); v == "true" {
				return notApplied("garbage-collectable ConfigMaps and Secrets are left to the resource manager's garbage collector, which deletes them once nothing references them")
			}
		}
		return nil
	},
}

// liveMetadataGate: the resource manager keeps the live metadata except labels, annotations and
// ownerReferences.
var liveMetadataGate = Rule{
	Name: "live-metadata",
	Change: func(_ *Diff, _ *ObjectDiff, c *FieldChange) []Impact {
		if !c.HasPrefix("metadata") || len(c.fields) < 2 {
			return nil
		}
		switch c.fields[1] {
		case "labels", "annotations", "ownerReferences":
			return nil
		}
		return notApplied("the resource manager keeps the live object's metadata." + c.fields[1] + " on update (only labels, annotations and ownerReferences come from the manifest)")
	},
}

// podTemplatePath returns the field path of the pod template inside a kind, or nil.
func podTemplatePath(id ObjectID) []string {
	switch {
	case isWorkload(id), id.Group == "batch" && id.Kind == "Job":
		return []string{"spec", "template"}
	case id.Group == "batch" && id.Kind == "CronJob":
		return []string{"spec", "jobTemplate", "spec", "template"}
	}
	return nil
}

// preservedResourcesGate: with preserve-resources: "true" the resource manager keeps the live cpu
// and memory requests and limits of each container (not init containers).
var preservedResourcesGate = Rule{
	Name: "preserve-resources",
	Change: func(_ *Diff, o *ObjectDiff, c *FieldChange) []Impact {
		tp := podTemplatePath(o.ID)
		if tp == nil || !literalTrue(o.New, resourcesv1alpha1.AnnotationPreserveResources) {
			return nil
		}
		prefix := append(append([]string(nil), tp...), "spec", "containers", "[]", "resources")
		if !c.HasPrefix(prefix...) || c.Op == OpReordered {
			return nil
		}
		rest := c.fields[len(prefix):]
		if !onlyCPUMemory(rest, c.Old) || !onlyCPUMemory(rest, c.New) {
			return nil
		}
		return notApplied("the workload has resources.gardener.cloud/preserve-resources: \"true\": the resource manager keeps the live cpu and memory requests and limits of its containers (an autoscaler owns them)")
	},
}

// onlyCPUMemory tells whether a change below containers[].resources touches only cpu/memory
// requests or limits. rest is the path below resources; v the old or new value there.
func onlyCPUMemory(rest []string, v any) bool {
	isCPUMem := func(k string) bool { return k == "cpu" || k == "memory" }
	isReqLim := func(k string) bool { return k == "requests" || k == "limits" }
	switch len(rest) {
	case 0: // the whole resources object
		m, _ := v.(map[string]any)
		for k, sub := range m {
			if !isReqLim(k) || !onlyCPUMemory([]string{k}, sub) {
				return false
			}
		}
		return true
	case 1:
		if !isReqLim(rest[0]) {
			return false
		}
		m, _ := v.(map[string]any)
		for k := range m {
			if !isCPUMem(k) {
				return false
			}
		}
		return true
	case 2:
		return isReqLim(rest[0]) && isCPUMem(rest[1])
	}
	return false
}

// preservedReplicasGate: the live spec.replicas is kept when the manifest omits it, has
// preserve-replicas: "true", or an HPA targets the workload.
var preservedReplicasGate = Rule{
	Name: "preserve-replicas",
	Change: func(d *Diff, o *ObjectDiff, c *FieldChange) []Impact {
		if o.ID.Group != "apps" || (o.ID.Kind != "Deployment" && o.ID.Kind != "StatefulSet") || c.Path != "spec.replicas" {
			return nil
		}
		switch {
		case c.Op == OpRemoved:
			return notApplied("the manifest no longer sets spec.replicas: the resource manager keeps the live replica count")
		case literalTrue(o.New, resourcesv1alpha1.AnnotationPreserveReplicas):
			return notApplied("the workload has resources.gardener.cloud/preserve-replicas: \"true\": the resource manager keeps the live replica count")
		case hpaTargets(d.New, o.ID):
			return notApplied("a HorizontalPodAutoscaler targets the workload: the resource manager keeps the live replica count")
		}
		return nil
	},
}

func hpaTargets(s *Set, id ObjectID) bool {
	for _, obj := range s.objects {
		if obj.ID.Group != "autoscaling" || obj.ID.Kind != "HorizontalPodAutoscaler" {
			continue
		}
		if lookupString(obj, "spec", "scaleTargetRef", "kind") == id.Kind && lookupString(obj, "spec", "scaleTargetRef", "name") == id.Name && obj.ID.Namespace == id.Namespace {
			return true
		}
	}
	return false
}

// podTemplateRule: a change of the pod template (labels, annotations such as a checksum, or
// spec; including a reordered list, because the controllers hash the template as stored) makes
// the workload controller replace every pod.
var podTemplateRule = Rule{
	Name: "pod-template",
	Change: func(_ *Diff, o *ObjectDiff, c *FieldChange) []Impact {
		tp := podTemplatePath(o.ID)
		if tp == nil || !c.HasPrefix(tp...) {
			return nil
		}
		w := []string{o.ID.Short()}
		what := "the pod template changed"
		if c.Op == OpReordered {
			what = "the order of a pod template list changed (the controller hashes the template as stored, so this counts as a change)"
		}
		switch o.ID.Kind {
		case "DaemonSet", "StatefulSet":
			strategy := lookupString(o.New, "spec", "updateStrategy", "type")
			if strategy == "OnDelete" {
				return []Impact{{Class: ClassDeferred, Workloads: w, Reason: what + ", but updateStrategy is OnDelete: pods get it only when they are deleted"}}
			}
			return []Impact{{Class: ClassRestart, Workloads: w, Reason: what + ": the " + o.ID.Kind + " controller replaces every pod (rolling update" + maxUnavailable(o.New) + ")"}}
		case "Deployment":
			if lookupString(o.New, "spec", "strategy", "type") == "Recreate" {
				return []Impact{{Class: ClassRestart, Workloads: w, Reason: what + ": strategy Recreate stops every pod before starting new ones"}}
			}
			return []Impact{{Class: ClassRestart, Workloads: w, Reason: what + ": the Deployment controller rolls out a new ReplicaSet"}}
		case "ReplicaSet":
			return []Impact{{Class: ClassDeferred, Workloads: w, Reason: what + ": a ReplicaSet does not replace running pods; new pods get it"}}
		case "Job":
			return []Impact{{Class: ClassDisruptive, Reason: "a Job's pod template is immutable: the API server rejects the update and the resource manager's apply stops here"}}
		case "CronJob":
			return []Impact{{Class: ClassDeferred, Workloads: w, Reason: what + ": jobs created from now on get it; running jobs are not changed"}}
		}
		return nil
	},
}

func maxUnavailable(obj *Object) string {
	v, ok := lookup(obj.Content, "spec", "updateStrategy", "rollingUpdate", "maxUnavailable")
	if !ok {
		return ""
	}
	return fmt.Sprintf(", maxUnavailable %v", v)
}

// immutableFieldRule: fields the API server does not let an update change.
var immutableFieldRule = Rule{
	Name: "immutable-field",
	Change: func(_ *Diff, o *ObjectDiff, c *FieldChange) []Impact {
		immutable := false
		switch {
		case (isWorkload(o.ID) || o.ID.Group == "batch" && o.ID.Kind == "Job") && c.HasPrefix("spec", "selector"):
			immutable = true
		case o.ID.Group == "apps" && o.ID.Kind == "StatefulSet" && (c.HasPrefix("spec", "serviceName") || c.HasPrefix("spec", "volumeClaimTemplates") || c.HasPrefix("spec", "podManagementPolicy")):
			immutable = true
		case o.ID.Group == "" && o.ID.Kind == "Service" && (c.HasPrefix("spec", "clusterIP") || c.HasPrefix("spec", "clusterIPs")) && c.Op != OpAdded:
			immutable = true
		case o.ID.Group == "rbac.authorization.k8s.io" && strings.HasSuffix(o.ID.Kind, "Binding") && c.HasPrefix("roleRef"):
			immutable = true
		case o.ID.Group == "" && (o.ID.Kind == "ConfigMap" || o.ID.Kind == "Secret") && o.Old != nil && o.Old.Content["immutable"] == true &&
			(c.HasPrefix("data") || c.HasPrefix("binaryData") || c.HasPrefix("immutable")):
			return []Impact{{Class: ClassSafe, Reason: "the deployed " + o.ID.Kind + " is immutable: the resource manager deletes and re-creates it"}}
		}
		if !immutable {
			return nil
		}
		if truthy(o.New, resourcesv1alpha1.AnnotationDeleteOnInvalidUpdate) {
			return []Impact{{Class: ClassDisruptive, Reason: c.Path + " is immutable: with resources.gardener.cloud/delete-on-invalid-update the resource manager deletes the object and re-creates it (every pod of it goes)"}}
		}
		return []Impact{{Class: ClassDisruptive, Reason: c.Path + " is immutable: the API server rejects the update, and the resource manager stops applying at this object (objects after it in its apply order are not applied either)"}}
	},
}

// configReferenceRule: a ConfigMap or Secret data change reaches pods only through their
// references: env and envFrom (and subPath mounts) are read at container start; other volume
// mounts are refreshed by the kubelet in running pods.
var configReferenceRule = Rule{
	Name: "config-reference",
	Change: func(d *Diff, o *ObjectDiff, c *FieldChange) []Impact {
		if o.ID.Group != "" || (o.ID.Kind != "ConfigMap" && o.ID.Kind != "Secret") || !(c.HasPrefix("data") || c.HasPrefix("binaryData")) {
			return nil
		}
		key := ""
		if len(c.fields) > 1 {
			key = c.fields[1]
		}
		refs := references(d.New, o.ID, key)
		if len(refs) == 0 {
			return []Impact{{Class: ClassSafe, Reason: "no workload in the new manifest reads this key"}}
		}
		var out []Impact
		for _, r := range refs {
			w := []string{r.workload.Short()}
			switch {
			case templateChanges(d, r.workload):
				out = append(out, Impact{Class: ClassSafe, Workloads: nil, Reason: r.workload.Short() + " reads it (" + r.how + ") and restarts anyway in this diff (its pod template changes), so its new pods get the new value"})
			case r.live:
				out = append(out, Impact{Class: ClassSafe, Reason: r.workload.Short() + " mounts it (" + r.how + "): the kubelet updates the file in running pods within about a minute; the process must re-read it"})
			default:
				out = append(out, Impact{Class: ClassDeferred, Workloads: w, Reason: r.workload.Short() + " reads it (" + r.how + ") only at container start, and nothing in this diff restarts it (no pod template change, e.g. no checksum annotation change): running pods keep the old value until they restart"})
			}
		}
		return out
	},
}

// reference is one workload that reads a ConfigMap or Secret.
type reference struct {
	workload ObjectID
	how      string
	// live is true when running pods see updates (a volume mount without subPath).
	live bool
}

// references finds the workloads of s that read key of the ConfigMap or Secret id ("" = any key).
func references(s *Set, id ObjectID, key string) []reference {
	var out []reference
	for _, obj := range s.Objects() {
		tp := podTemplatePath(obj.ID)
		if tp == nil || obj.ID.Namespace != id.Namespace {
			continue
		}
		v, _ := lookup(obj.Content, append(append([]string(nil), tp...), "spec")...)
		pod, _ := v.(map[string]any)
		if pod == nil {
			continue
		}
		if how, live, ok := podReads(pod, id.Kind, id.Name, key); ok {
			out = append(out, reference{workload: obj.ID, how: how, live: live})
		}
	}
	return out
}

// podReads tells whether a pod spec reads key of the named ConfigMap or Secret, and how.
func podReads(pod map[string]any, kind, name, key string) (how string, live, ok bool) {
	f := refFieldsOf(kind)
	if hows := envReads(pod, f, name, key); len(hows) > 0 {
		return strings.Join(hows, ", "), false, true
	}
	if volume, ok := volumeReads(pod, f, name); ok {
		return "volume " + volume, !subPathMount(pod, volume), true
	}
	return "", false, false
}

// refFields are the fields that name a ConfigMap or a Secret: in an env var's valueFrom, in
// envFrom, as a volume source and, in that source, the field holding its name.
type refFields struct {
	keyRef, envFromRef, volField, nameField string
}

// refFieldsOf returns the reference fields of a ConfigMap, or of a Secret if kind is "Secret".
func refFieldsOf(kind string) refFields {
	if kind == "Secret" {
		return refFields{keyRef: "secretKeyRef", envFromRef: "secretRef", volField: "secret", nameField: "secretName"}
	}
	return refFields{keyRef: "configMapKeyRef", envFromRef: "configMapRef", volField: "configMap", nameField: "name"}
}

// envReads lists how the pod's containers read key ("" = any) of the named object into their
// environment: "env X of container C" and "envFrom of container C".
func envReads(pod map[string]any, f refFields, name, key string) []string {
	var hows []string
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := pod[list].([]any)
		for _, ci := range cs {
			c, _ := ci.(map[string]any)
			cname := str(c, "name")
			envs, _ := c["env"].([]any)
			for _, ei := range envs {
				e, _ := ei.(map[string]any)
				ref, _ := lookup(e, "valueFrom", f.keyRef)
				r, _ := ref.(map[string]any)
				if r != nil && str(r, "name") == name && (key == "" || str(r, "key") == key) {
					hows = append(hows, fmt.Sprintf("env %s of container %s", str(e, "name"), cname))
				}
			}
			efs, _ := c["envFrom"].([]any)
			for _, efi := range efs {
				ef, _ := efi.(map[string]any)
				r, _ := ef[f.envFromRef].(map[string]any)
				if r != nil && str(r, "name") == name {
					hows = append(hows, "envFrom of container "+cname)
				}
			}
		}
	}
	return hows
}

// volumeReads returns the name of the pod's first volume whose source, or one of whose projected
// sources, is the named object.
func volumeReads(pod map[string]any, f refFields, name string) (string, bool) {
	vols, _ := pod["volumes"].([]any)
	for _, vi := range vols {
		v, _ := vi.(map[string]any)
		if src, _ := v[f.volField].(map[string]any); src != nil {
			if str(src, f.nameField) == name {
				return str(v, "name"), true
			}
			continue
		}
		if projectsSource(v, f.volField, name) {
			return str(v, "name"), true
		}
	}
	return "", false
}

// projectsSource tells whether a projected volume has a volField source with the given name.
func projectsSource(v map[string]any, volField, name string) bool {
	srcs, _ := lookup(v, "projected", "sources")
	list, _ := srcs.([]any)
	for _, si := range list {
		s, _ := si.(map[string]any)
		if ps, _ := s[volField].(map[string]any); ps != nil && str(ps, "name") == name {
			return true
		}
	}
	return false
}

// subPathMount tells whether any container mounts the volume with subPath (such files are never
// updated in running pods).
func subPathMount(pod map[string]any, volume string) bool {
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := pod[list].([]any)
		for _, ci := range cs {
			c, _ := ci.(map[string]any)
			ms, _ := c["volumeMounts"].([]any)
			for _, mi := range ms {
				m, _ := mi.(map[string]any)
				if str(m, "name") == volume && (str(m, "subPath") != "" || str(m, "subPathExpr") != "") {
					return true
				}
			}
		}
	}
	return false
}

// templateChanges tells whether the workload's pod template changes in d.
func templateChanges(d *Diff, id ObjectID) bool {
	tp := podTemplatePath(id)
	for _, o := range d.Objects {
		if o.ID != id || o.Op != OpChanged {
			continue
		}
		for _, c := range o.Changes {
			if c.HasPrefix(tp...) {
				return true
			}
		}
	}
	return false
}

func isIPPool(id ObjectID) bool {
	return id.Kind == "IPPool" && (id.Group == "crd.projectcalico.org" || id.Group == "projectcalico.org")
}

// ipPoolRule: Calico IP pool semantics (docs/ippools.md §2.4, §3).
var ipPoolRule = Rule{
	Name: "ippool",
	Object: func(_ *Diff, o *ObjectDiff) []Impact {
		if !isIPPool(o.ID) || o.Op != OpRemoved {
			return nil
		}
		return []Impact{{Class: ClassDisruptive, Reason: "the resource manager deletes the IP pool: pods still holding addresses from " + orUnknown(lookupString(o.Old, "spec", "cidr")) + " lose NAT and encapsulation for them, and a later overlapping pool can hand the same addresses out again"}}
	},
	Change: func(_ *Diff, o *ObjectDiff, c *FieldChange) []Impact {
		if !isIPPool(o.ID) || !c.HasPrefix("spec") || len(c.fields) < 2 {
			return nil
		}
		switch c.fields[1] {
		case "cidr", "blockSize":
			return []Impact{{Class: ClassDisruptive, Reason: "an IP pool's " + c.fields[1] + " is immutable in Calico (existing IPAM blocks keep the old layout); migrate to a new pool instead"}}
		case "ipipMode", "vxlanMode":
			return []Impact{{Class: ClassDisruptive, Reason: "changes the encapsulation of pod traffic from this pool on every node at once (Felix reprograms routes and tunnels live)"}}
		case "natOutgoing":
			return []Impact{{Class: ClassDisruptive, Reason: "changes source NAT of pod egress from this pool on every node at once; established connections can break"}}
		case "disabled":
			if c.New == false || c.Op == OpRemoved {
				return []Impact{{Class: ClassSafe, Reason: "re-enables new allocations from this pool (running pods are not affected); check that the cluster owner did not disable it on purpose"}}
			}
			return []Impact{{Class: ClassSafe, Reason: "stops new allocations from this pool; running pods keep their addresses"}}
		}
		return []Impact{{Class: ClassSafe, Reason: "affects only new address allocations"}}
	},
}

func orUnknown(s string) string {
	if s == "" {
		return "its CIDR"
	}
	return s
}

func isCRD(id ObjectID) bool {
	return id.Group == "apiextensions.k8s.io" && id.Kind == "CustomResourceDefinition"
}

// crdRule: CRDs hold data.
var crdRule = Rule{
	Name: "crd",
	Object: func(_ *Diff, o *ObjectDiff) []Impact {
		if !isCRD(o.ID) || o.Op != OpRemoved {
			return nil
		}
		return []Impact{{Class: ClassDisruptive, Reason: "deleting a CustomResourceDefinition deletes every " + o.ID.Name + " object stored in the cluster"}}
	},
	Change: func(_ *Diff, o *ObjectDiff, c *FieldChange) []Impact {
		if !isCRD(o.ID) {
			return nil
		}
		f := c.fields
		switch {
		case c.HasPrefix("spec", "group"), c.HasPrefix("spec", "scope"), c.HasPrefix("spec", "names", "plural"), c.HasPrefix("spec", "names", "kind"):
			return []Impact{{Class: ClassDisruptive, Reason: c.Path + " cannot change on an existing CRD (the API server rejects it)"}}
		case c.HasPrefix("spec", "versions", "[]") && len(f) == 3 && c.Op == OpRemoved:
			return []Impact{{Class: ClassDisruptive, Reason: "removing a served version breaks clients of it, and objects stored in it become unreadable if it was a storage version"}}
		case c.HasPrefix("spec", "versions", "[]", "storage"), c.HasPrefix("spec", "versions", "[]", "served"):
			return []Impact{{Class: ClassDisruptive, Reason: "changes which version stores or serves the objects; stored objects are only rewritten when written again, so a later downgrade must still read them"}}
		case c.Op == OpRemoved && len(f) >= 2 && f[len(f)-2] == "properties" && contains(f, "openAPIV3Schema"):
			return []Impact{{Class: ClassDisruptive, Reason: "a field removed from the schema is pruned from stored objects the next time they are written"}}
		case contains(f, "openAPIV3Schema") && len(f) >= 1:
			return schemaConstraintImpact(o, c)
		}
		return nil
	},
}

// schemaConstraintImpact names a change of what a CRD's schema accepts for one field: a new or
// changed enum or pattern (a stricter rule for new values: the API server ratchets, so a stored
// object keeps an unchanged value), or nullability (a null written to a field that is not
// nullable is dropped).
func schemaConstraintImpact(o *ObjectDiff, c *FieldChange) []Impact {
	f := c.fields
	last := f[len(f)-1]
	if last == "[]" && len(f) >= 2 {
		last = f[len(f)-2] // an enum value
	}
	field := schemaFieldPath(f)
	switch last {
	case "enum":
		return []Impact{{Class: ClassSafe, Reason: fmt.Sprintf("CRD %s: the values accepted for %s change (enum %s); new writes outside them are rejected, stored objects keep an unchanged value (the API server ratchets)", o.ID.Name, field, c.Op)}}
	case "pattern":
		orNone := func(v any) any {
			if v == nil {
				return "none"
			}
			return v
		}
		return []Impact{{Class: ClassSafe, Reason: fmt.Sprintf("CRD %s: the pattern of %s changes (%v -> %v); new writes must match it", o.ID.Name, field, orNone(c.Old), orNone(c.New))}}
	case "nullable":
		return []Impact{{Class: ClassSafe, Reason: fmt.Sprintf("CRD %s: %s becomes nullable=%v (a null is stored as written, not dropped)", o.ID.Name, field, c.New)}}
	}
	return nil
}

// schemaFieldPath turns the keys of a change inside openAPIV3Schema into the object's field path
// (spec.peerIP, spec.ingress[].ports[]).
func schemaFieldPath(f []string) string {
	var out []string
	in := false
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == "openAPIV3Schema":
			in = true
		case !in:
		case f[i] == "properties" && i+1 < len(f):
			out = append(out, f[i+1])
			i++
		case f[i] == "items" && len(out) > 0:
			out[len(out)-1] += "[]"
		}
	}
	return strings.Join(out, ".")
}

func contains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

// removedObjectRule: removing a workload stops its pods.
var removedObjectRule = Rule{
	Name: "removed-object",
	Object: func(_ *Diff, o *ObjectDiff) []Impact {
		if o.Op != OpRemoved {
			return nil
		}
		switch {
		case isWorkload(o.ID):
			return []Impact{{Class: ClassDisruptive, Reason: "the resource manager deletes the " + o.ID.Kind + " (foreground): all its pods stop"}}
		case o.ID.Group == "" && o.ID.Kind == "Namespace":
			return []Impact{{Class: ClassDisruptive, Reason: "deleting a Namespace deletes everything in it"}}
		}
		return nil
	},
}

// rbacRule: what a role change grants or takes away, once per role (on its first changed rule), as
// "gains VERBS on GROUP/RESOURCE; loses ...", so an operator sees a Calico component's new
// permissions before the resource manager applies them.
var rbacRule = Rule{
	Name: "rbac",
	Change: func(_ *Diff, o *ObjectDiff, c *FieldChange) []Impact {
		if o.ID.Group != "rbac.authorization.k8s.io" || (o.ID.Kind != "ClusterRole" && o.ID.Kind != "Role") || !c.HasPrefix("rules") {
			return nil
		}
		for _, first := range o.Changes {
			if first.HasPrefix("rules") {
				if first != c {
					return nil
				}
				break
			}
		}
		gained, lost := permissionDiff(rulesOf(o.Old), rulesOf(o.New))
		var parts []string
		if len(gained) > 0 {
			parts = append(parts, "gains "+strings.Join(gained, "; "))
		}
		if len(lost) > 0 {
			parts = append(parts, "loses "+strings.Join(lost, "; "))
		}
		if len(parts) == 0 {
			return []Impact{{Class: ClassSafe, Reason: o.ID.Kind + " " + o.ID.Name + ": the rules are rewritten, the permissions stay the same"}}
		}
		return []Impact{{Class: ClassSafe, Reason: o.ID.Kind + " " + o.ID.Name + " " + strings.Join(parts, ", ") + " (applied in place; the component's next request uses them)"}}
	},
}

// permission is one verb on one resource (of one name, "" for all).
type permission struct{ group, resource, name, verb string }

func rulesOf(obj *Object) map[permission]bool {
	out := map[permission]bool{}
	if obj == nil {
		return out
	}
	rules, _ := obj.Content["rules"].([]any)
	strs := func(m map[string]any, key string) []string {
		l, _ := m[key].([]any)
		var res []string
		for _, v := range l {
			if s, ok := v.(string); ok {
				res = append(res, s)
			}
		}
		return res
	}
	for _, r := range rules {
		m, _ := r.(map[string]any)
		names := strs(m, "resourceNames")
		if len(names) == 0 {
			names = []string{""}
		}
		for _, g := range strs(m, "apiGroups") {
			for _, res := range strs(m, "resources") {
				for _, v := range strs(m, "verbs") {
					for _, n := range names {
						out[permission{g, res, n, v}] = true
					}
				}
			}
		}
	}
	return out
}

// permissionDiff lists what new grants beyond old and what old granted that new does not, as
// "VERBS on GROUP/RESOURCES" with the resources sharing the same verbs and group joined ("watch on
// crd.projectcalico.org/ipamblocks, ippools"; a name in parentheses), sorted.
func permissionDiff(old, new map[permission]bool) (gained, lost []string) {
	group := func(only, other map[permission]bool) []string {
		verbs := map[[3]string][]string{} // group, resource, name -> verbs
		for p := range only {
			if other[p] || (p.name != "" && other[permission{p.group, p.resource, "", p.verb}]) {
				continue
			}
			k := [3]string{p.group, p.resource, p.name}
			verbs[k] = append(verbs[k], p.verb)
		}
		resources := map[[2]string][]string{} // verbs, group -> resources
		for k, vs := range verbs {
			sort.Strings(vs)
			res := k[1]
			if k[2] != "" {
				res += " (" + k[2] + ")"
			}
			g := [2]string{strings.Join(vs, ", "), k[0]}
			resources[g] = append(resources[g], res)
		}
		out := make([]string, 0, len(resources))
		for g, res := range resources {
			sort.Strings(res)
			prefix := g[1] + "/"
			if g[1] == "" {
				prefix = ""
			}
			out = append(out, g[0]+" on "+prefix+strings.Join(res, ", "))
		}
		sort.Strings(out)
		return out
	}
	return group(new, old), group(old, new)
}
