package calicooracle

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// CheckStartup checks the calico-node pod of a render against the table's start-up facts, without
// an API server: a container that relies on a flag that no longer clears NetworkUnavailable, pool
// environment that terminates start-up, and FELIX_ variables Felix does not read (Felix reads
// FELIX_<FIELD> for the spec fields of the FelixConfiguration CRD, case-insensitively, and the
// table's felixEnvOutsideCRD). Each finding names the container and what Calico does with it.
func CheckStartup(t *Table, d *Deployment) ([]string, error) {
	felixFields, err := felixConfigurationFields(t)
	if err != nil {
		return nil, err
	}
	var findings []string
	findings = append(findings, checkNetworkUnavailable(t, d)...)
	env := d.Env
	for _, name := range t.StartupEnv.PoolEncapsulationVars {
		v, ok := env[name]
		if !ok || strings.HasPrefix(v, "<from ") {
			continue
		}
		if !slices.Contains(t.StartupEnv.PoolEncapsulationValues, strings.ToLower(v)) {
			findings = append(findings, fmt.Sprintf("calico-node: %s=%q terminates start-up (Calico %s accepts %q, case-insensitively)",
				name, v, t.CalicoVersion, t.StartupEnv.PoolEncapsulationValues))
		}
	}
	if strings.EqualFold(env["NO_DEFAULT_POOLS"], "true") {
		for _, name := range t.StartupEnv.NoDefaultPoolsConflicts {
			if _, ok := env[name]; ok {
				findings = append(findings, fmt.Sprintf("calico-node: NO_DEFAULT_POOLS=true together with %s terminates start-up", name))
			}
		}
	}
	known := map[string]bool{}
	for _, f := range felixFields {
		known[strings.ToUpper(f)] = true
	}
	var names []string
	for name := range env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		param, ok := strings.CutPrefix(name, "FELIX_")
		if !ok {
			continue
		}
		if _, outside := t.FelixEnvOutsideCRD[param]; !known[param] && !outside {
			findings = append(findings, fmt.Sprintf("calico-node: %s is not a Felix parameter (no FelixConfiguration field %s); Felix ignores it", name, strings.ToLower(param)))
		}
	}
	return findings, nil
}

// felixConfigurationFields are the spec fields of the FelixConfiguration CRD calico-pilot installs for
// the table's Calico line (api/projectcalico/crds, held equal to Calico's by
// TestGeneratedCRDsMatchFieldFacts and, for v3.32, TestV3_32FieldCountsMatchDelta).
func felixConfigurationFields(t *Table) ([]string, error) {
	// The table's line (its release may be one the catalogue no longer carries).
	line, ok := calicoversion.Default().Line(t.CalicoVersion)
	if !ok {
		return nil, fmt.Errorf("the table's Calico version %q: not a release of a line of the catalogue (%s)", t.CalicoVersion, strings.Join(calicoversion.Default().LineNames(), ", "))
	}
	defs, err := crds.CustomResourceDefinitionsFor(line.CRDSet())
	if err != nil {
		return nil, fmt.Errorf("loading the CRDs: %w", err)
	}
	for _, d := range defs {
		if d.Spec.Names.Kind == "FelixConfiguration" && len(d.Spec.Versions) > 0 && d.Spec.Versions[0].Schema != nil {
			spec := d.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			out := make([]string, 0, len(spec.Properties))
			for name := range spec.Properties {
				out = append(out, name)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("no FelixConfiguration CRD among the CRDs")
}

// checkNetworkUnavailable finds containers that run calico-node with the flag that no longer clears
// NetworkUnavailable but without the one that does, and a render that clears it nowhere.
func checkNetworkUnavailable(t *Table, d *Deployment) []string {
	nu := t.NetworkUnavailable
	var findings []string
	clears := false
	for _, c := range d.Pod.Containers {
		cmd := strings.Join(append(slices.Clone(c.Command), c.Args...), " ")
		if c.Name == "calico-node" && len(c.Command) == 0 {
			// The image's entrypoint runs -startup, then the complete-startup runit service (§2.5).
			clears = true
			continue
		}
		runs := invokes(cmd, nu.ClearedBy)
		clears = clears || runs
		if invokes(cmd, nu.NotClearedBy) && !runs {
			findings = append(findings, fmt.Sprintf("container %s runs calico-node %s, which does not clear NetworkUnavailable in Calico %s (%s does)",
				c.Name, nu.NotClearedBy, t.CalicoVersion, nu.ClearedBy))
		}
	}
	if !clears && d.Conditions[NetworkingBackend] {
		findings = append(findings, "no container of calico-node clears NetworkUnavailable (runs calico-node "+nu.ClearedBy+" or the image's entrypoint)")
	}
	return findings
}

// invokes reports whether a shell command line runs calico-node with the flag.
func invokes(cmd, flag string) bool {
	for _, line := range strings.FieldsFunc(cmd, func(r rune) bool { return r == '\n' || r == ';' || r == '|' || r == '&' }) {
		fields := strings.Fields(line)
		for i, f := range fields {
			if (f == "calico-node" || strings.HasSuffix(f, "/calico-node")) && slices.Contains(fields[i+1:], flag) {
				return true
			}
		}
	}
	return false
}
