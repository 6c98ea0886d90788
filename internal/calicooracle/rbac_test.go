package calicooracle_test

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// factSections maps the component facts' RBAC sections to the ClusterRole each describes.
var factSections = map[string]string{
	"### 1.1 ClusterRole calico-node":             "calico-node",
	"### 1.2 ClusterRole calico-cni-plugin":       "calico-cni-plugin",
	"### 1.3 ClusterRole calico-kube-controllers": "calico-kube-controllers",
	"### 1.4 ClusterRole calico-tier-getter":      "calico-tier-getter",
}

// atom is one permission: "role group resource verb [name]" (group "core" for the core group).
func atom(role, group, resource, verb, name string) string {
	if group == "" {
		group = "core"
	}
	a := role + " " + group + " " + resource + " " + verb
	if name != "" {
		a += " " + name
	}
	return a
}

// readUpstreamRules reads Calico v3.31.6's ClusterRoles from the tables of §1.
func readUpstreamRules(t *testing.T) map[string]bool {
	t.Helper()
	path := filepath.Join(testenv.RepoRoot(), "..", "shared", "reference", "calico-v3.31-components.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("component facts not available at %s (../shared is absent next to the repository): %v", path, err)
	}
	out := map[string]bool{}
	role := ""
	var header []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			role, header = "", nil
			for prefix, r := range factSections {
				if strings.HasPrefix(line, prefix) {
					role = r
				}
			}
			continue
		}
		if role == "" || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := splitRow(line)
		if header == nil {
			header = cells
			continue
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		col := func(name string) string {
			for i, h := range header {
				if h == name && i < len(cells) {
					return cells[i]
				}
			}
			return ""
		}
		group := strings.Trim(col("apiGroup"), `"`)
		names := []string{""}
		if n := col("resourceNames"); n != "" && n != "–" {
			names = list(n)
		}
		for _, res := range list(col("resources")) {
			for _, verb := range list(col("verbs")) {
				for _, n := range names {
					out[atom(role, group, res, verb, n)] = true
				}
			}
		}
	}
	for _, r := range factSections {
		found := false
		for a := range out {
			found = found || strings.HasPrefix(a, r+" ")
		}
		if !found {
			t.Fatalf("%s: no rules read for %s", path, r)
		}
	}
	return out
}

func splitRow(line string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func list(cell string) []string {
	var out []string
	for _, s := range strings.Split(cell, ",") {
		if s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "`")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// renderedRules returns the ClusterRoles calico-pilot renders for Calico's components when every
// component runs release v.
func renderedRules(v calicoversion.Release) map[string][]rbacv1.PolicyRule {
	roles := map[string][]rbacv1.PolicyRule{}
	for _, g := range render.Constants(calicoversion.Default()) {
		if (g.Group == render.GroupAlways || g.Group == render.GroupKubeControllers) && !slices.Equal(g.Releases.Releases(), []calicoversion.Release{v}) {
			continue
		}
		for _, o := range g.Objects() {
			if cr, ok := o.(*rbacv1.ClusterRole); ok {
				for _, r := range factSections {
					if cr.Name == r {
						roles[r] = cr.Rules
					}
				}
			}
		}
	}
	return roles
}

// covers reports whether rules grant the atom's permission (a rule without resourceNames covers
// every name).
func covers(rules []rbacv1.PolicyRule, group, resource, verb, name string) bool {
	for _, r := range rules {
		if has(r.APIGroups, group) && has(r.Resources, resource) && has(r.Verbs, verb) &&
			(len(r.ResourceNames) == 0 || (name != "" && has(r.ResourceNames, name))) {
			return true
		}
	}
	return false
}

func has(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

var atomRE = regexp.MustCompile(`^(\S+) (\S+) (\S+) (\S+)(?: (\S+))?$`)

// readDocumentedRBAC reads a table of differences of docs/calico-rbac.md (the section named heading):
// "not granted" and "added" permissions, with their reason and the oracle row that shows it. A row
// whose resources cell is "(every crd.projectcalico.org rule)" stands for the projectcalico.org copy
// of each of the role's upstream crd.projectcalico.org permissions: mirrored lists those roles.
func readDocumentedRBAC(t *testing.T, heading string) (notGranted, added, mirrored map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "calico-rbac.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), heading+"\n")
	if !ok {
		t.Fatalf("docs/calico-rbac.md has no section %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	notGranted, added, mirrored = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := splitRow(line)
		if len(cells) < 7 || !strings.HasPrefix(cells[0], "`") {
			continue
		}
		role, change, group := strings.Trim(cells[0], "`"), cells[1], strings.Trim(cells[2], "`\"")
		if cells[5] == "" || cells[6] == "" {
			t.Errorf("docs/calico-rbac.md: row for %s %s gives no reason or no oracle evidence", role, cells[3])
		}
		verbs, n, withNames := strings.Cut(cells[4], " names: ")
		names := []string{""}
		if withNames {
			names = list(n)
		}
		if cells[3] == "(every crd.projectcalico.org rule)" && change == "not granted" && group == "projectcalico.org" {
			mirrored[role] = true
			continue
		}
		target := map[string]map[string]bool{"not granted": notGranted, "added": added}[change]
		if target == nil {
			t.Fatalf("docs/calico-rbac.md: change %q is neither \"not granted\" nor \"added\"", change)
		}
		for _, res := range list(cells[3]) {
			for _, verb := range list(verbs) {
				for _, n := range names {
					target[atom(role, group, res, verb, n)] = true
				}
			}
		}
	}
	return notGranted, added, mirrored
}

// upstreamFacts are, per line of the catalogue, the permissions Calico's own manifests grant (read
// from the facts) and the section of docs/calico-rbac.md that lists calico-pilot's differences from
// them. A patch release changes no RBAC unless its facts say so (Calico v3.31.7: none), so every
// release of a line is held against its line's facts; a line without facts here fails.
var upstreamFacts = map[string]struct {
	upstream func(t *testing.T, base map[string]bool) map[string]bool
	heading  string
}{
	"v3.31": {func(_ *testing.T, base map[string]bool) map[string]bool { return base }, "## Differences from Calico's manifests"},
	"v3.32": {upstreamV3_32, "## Differences from Calico v3.32.1's manifests"},
}

// TestRolesMatchCalicoFacts holds the ClusterRoles calico-pilot renders for Calico's components at
// every release of the catalogue against the rules Calico's own manifests grant for its line
// (component facts §1 for v3.31; the v3.32 delta's §3 on top for v3.32): every upstream permission is
// granted, or listed as "not granted" in docs/calico-rbac.md with the oracle row that shows Calico
// never needs it; every permission beyond upstream is listed as "added". Stale rows fail.
func TestRolesMatchCalicoFacts(t *testing.T) {
	base := readUpstreamRules(t)
	for _, r := range calicoversion.Default().Releases() {
		t.Run(r.Name(), func(t *testing.T) {
			facts, ok := upstreamFacts[r.Line().Name()]
			if !ok {
				t.Fatalf("no RBAC facts for line %s: add its upstream rules and its section of docs/calico-rbac.md", r.Line())
			}
			compareRoles(t, facts.upstream(t, base), renderedRules(r), facts.heading)
		})
	}
}

// compareRoles compares rendered roles with upstream's permissions and the documented differences.
func compareRoles(t *testing.T, upstream map[string]bool, rendered map[string][]rbacv1.PolicyRule, heading string) {
	if len(rendered) != len(factSections) {
		t.Fatalf("rendered %d of the %d ClusterRoles", len(rendered), len(factSections))
	}
	missing := map[string]bool{}
	for a := range upstream {
		m := atomRE.FindStringSubmatch(a)
		if m[2] == "core" {
			m[2] = ""
		}
		if !covers(rendered[m[1]], m[2], m[3], m[4], m[5]) {
			missing[a] = true
		}
	}
	extra := map[string]bool{}
	for role, rules := range rendered {
		for _, r := range rules {
			names := r.ResourceNames
			if len(names) == 0 {
				names = []string{""}
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						for _, n := range names {
							if !upstream[atom(role, g, res, v, n)] {
								extra[atom(role, g, res, v, n)] = true
							}
						}
					}
				}
			}
		}
	}
	notGranted, added, mirrored := readDocumentedRBAC(t, heading)
	for a := range missing {
		m := atomRE.FindStringSubmatch(a)
		if m[2] == "projectcalico.org" && mirrored[m[1]] && upstream[strings.Replace(a, " projectcalico.org ", " crd.projectcalico.org ", 1)] {
			delete(missing, a)
		}
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(notGranted)), slices.Sorted(maps.Keys(missing))); diff != "" {
		t.Errorf("upstream permissions not granted (-documented in docs/calico-rbac.md +rendered):\n%s", diff)
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(added)), slices.Sorted(maps.Keys(extra))); diff != "" {
		t.Errorf("permissions beyond upstream (-documented in docs/calico-rbac.md +rendered):\n%s", diff)
	}
}

// deltaRBAC is what Calico v3.32.1's ClusterRoles add to and remove from v3.31.6's (docs/calico-v3.32.md §3), as
// "group resource verbs" per role; every resource named must appear in the delta's row for the role
// (readDeltaRBACRows). The projectcalico.org copy of every crd.projectcalico.org rule (§3, first row)
// is added by upstreamV3_32 itself.
var deltaRBAC = []struct {
	role, group string
	resources   []string
	verbs       []string
	removed     bool
}{
	{"calico-node", "policy.networking.k8s.io", []string{"clusternetworkpolicies"}, []string{"list", "watch"}, false},
	{"calico-node", "kubevirt.io", []string{"virtualmachineinstancemigrations"}, []string{"get", "list", "watch"}, false},
	{"calico-node", "crd.projectcalico.org", []string{"ipamconfigurations"}, []string{"create", "get"}, false},
	{"calico-node", "crd.projectcalico.org", []string{"bgpconfigurations"}, []string{"create", "update"}, false},
	{"calico-node", "policy.networking.k8s.io", []string{"adminnetworkpolicies", "baselineadminnetworkpolicies"}, []string{"list", "watch"}, true},
	{"calico-cni-plugin", "crd.projectcalico.org", []string{"ipamconfigurations"}, []string{"create", "delete", "get", "list", "update"}, false},
	{"calico-cni-plugin", "kubevirt.io", []string{"virtualmachineinstances", "virtualmachines"}, []string{"get"}, false},
	{"calico-kube-controllers", "crd.projectcalico.org", []string{"ipamconfigurations"}, []string{"get", "list", "create", "update", "delete", "watch"}, false},
	{"calico-kube-controllers", "crd.projectcalico.org", []string{"kubecontrollersconfigurations/status"}, []string{"get", "update"}, false},
	{"calico-kube-controllers", "crd.projectcalico.org", []string{"networkpolicies", "stagednetworkpolicies", "globalnetworkpolicies", "stagedglobalnetworkpolicies"},
		[]string{"get", "list", "watch", "create", "update", "delete"}, false},
	{"calico-kube-controllers", "apps", []string{"daemonsets", "deployments"}, []string{"get", "list", "watch"}, false},
	{"calico-kube-controllers", "migration.projectcalico.org", []string{"datastoremigrations", "datastoremigrations/status"},
		[]string{"get", "list", "watch", "create", "update", "patch"}, false},
	{"calico-kube-controllers", "apiextensions.k8s.io", []string{"customresourcedefinitions"}, []string{"get", "list", "watch", "delete"}, false},
	{"calico-kube-controllers", "apiregistration.k8s.io", []string{"apiservices"}, []string{"get", "list", "watch", "create", "delete"}, false},
	{"calico-kube-controllers", "projectcalico.org", []string{"*"}, []string{"*"}, false},
	{"calico-kube-controllers", "crd.projectcalico.org", []string{"*"}, []string{"get", "list", "watch"}, false},
	{"calico-kube-controllers", "kubevirt.io", []string{"virtualmachines", "virtualmachineinstances"}, []string{"get", "list", "watch"}, false},
}

// deltaRoleRows maps the delta's §3 table rows to the roles they describe.
var deltaRoleRows = map[string]string{
	"| calico-node (SA calico-node": "calico-node",
	"| calico-cni-plugin ":          "calico-cni-plugin",
	"| calico-kube-controllers ":    "calico-kube-controllers",
}

// upstreamV3_32 is Calico v3.32.1's permissions: v3.31.6's (base), the projectcalico.org copy of
// every crd.projectcalico.org permission of calico-node, the CNI plugin and kube-controllers, and
// deltaRBAC. It fails when deltaRBAC names a resource the delta's row for the role does not.
func upstreamV3_32(t *testing.T, base map[string]bool) map[string]bool {
	t.Helper()
	path := filepath.Join(testenv.RepoRoot(), "..", "shared", "reference", "calico-v3.32-delta.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("delta facts not available at %s: %v", path, err)
	}
	_, section, _ := strings.Cut(string(data), "## 3. RBAC per component")
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		for prefix, role := range deltaRoleRows {
			if strings.HasPrefix(line, prefix) {
				rows[role] = line
			}
		}
	}
	out := map[string]bool{}
	for a := range base {
		out[a] = true
	}
	for _, d := range deltaRBAC {
		for _, res := range d.resources {
			if res != "*" && !strings.Contains(rows[d.role], res) {
				t.Errorf("deltaRBAC: %s %s is not in the delta's §3 row for %s", d.role, res, d.role)
			}
			for _, v := range d.verbs {
				if d.removed {
					delete(out, atom(d.role, d.group, res, v, ""))
				} else {
					out[atom(d.role, d.group, res, v, "")] = true
				}
			}
		}
	}
	for a := range out {
		m := atomRE.FindStringSubmatch(a)
		if m[2] == "crd.projectcalico.org" && m[1] != "calico-tier-getter" {
			out[strings.Replace(a, " crd.projectcalico.org ", " projectcalico.org ", 1)] = true
		}
	}
	return out
}
