package calicofacts

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The kinds the live checks list.
var (
	kindANP       = Kind{"policy.networking.k8s.io/v1alpha1", "AdminNetworkPolicy"}
	kindBANP      = Kind{"policy.networking.k8s.io/v1alpha1", "BaselineAdminNetworkPolicy"}
	kindCNP       = Kind{"policy.networking.k8s.io/v1alpha2", "ClusterNetworkPolicy"}
	kindCRD       = Kind{"apiextensions.k8s.io/v1", "CustomResourceDefinition"}
	kindBGPPeer   = Kind{"crd.projectcalico.org/v1", "BGPPeer"}
	kindBGPFilter = Kind{"crd.projectcalico.org/v1", "BGPFilter"}
	kindBGPConfig = Kind{"crd.projectcalico.org/v1", "BGPConfiguration"}
	kindFelix     = Kind{"crd.projectcalico.org/v1", "FelixConfiguration"}
	kindIPAMBlock = Kind{"crd.projectcalico.org/v1", "IPAMBlock"}
	// policyKinds are Calico's tiered policy kinds (stored names carry the tier in 3.31).
	policyKinds = []Kind{
		{"crd.projectcalico.org/v1", "NetworkPolicy"},
		{"crd.projectcalico.org/v1", "GlobalNetworkPolicy"},
		{"crd.projectcalico.org/v1", "StagedNetworkPolicy"},
		{"crd.projectcalico.org/v1", "StagedGlobalNetworkPolicy"},
	}
)

const v331, v332 = "v3.31", "v3.32"

// between returns facts as the facts of a move in direction dir between the adjacent lines older
// and newer: the move is stated once for all of them.
func between(dir Direction, older, newer string, facts []Fact) []Fact {
	for i := range facts {
		facts[i].Direction, facts[i].Older, facts[i].Newer = dir, older, newer
	}
	return facts
}

// upgradeFacts: docs/calico-v3.32.md §0 and §5, those that need an action or a look; the first
// is a fact of every move between lines.
func upgradeFacts() []Fact {
	return append([]Fact{{
		// Every move between lines: the ranges are the catalogue's (internal/calicoversion).
		ID: "kubernetes-range", Direction: Both, Severity: Blocker, Kubernetes: true,
		Title:   "the target line must support the shoot's Kubernetes version (docs/calico-lines.md lists each line's range)",
		Happens: "Calico supports each line on a range of Kubernetes minors; outside it nobody has run it.",
		Action:  "move on a Kubernetes version both lines support; upgrade Kubernetes before Calico going up, Calico before Kubernetes going down",
		Source:  "§0 row 10, §5 Kubernetes",
	}}, between(Up, v331, v332, []Fact{
		{
			ID: "up.anp-banp-not-enforced", Severity: Blocker,
			Title:   "AdminNetworkPolicy and BaselineAdminNetworkPolicy objects are no longer enforced by v3.32",
			Happens: "v3.32 drops the ANP/BANP CRDs from its manifest and enforces ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2) instead; existing ANP/BANP objects stay but no node enforces them.",
			Action:  "rewrite each as a ClusterNetworkPolicy (tier Admin or Baseline; Allow becomes Accept; no node peers, at most 25 rules) or delete it, before the move",
			Handled: "calico-pilot keeps the ANP/BANP CRDs (it never deletes a Calico CRD), so the objects are not lost",
			Source:  "§0 row 2, §2.1, §5 before you start",
			Live:    &Check{What: "AdminNetworkPolicy and BaselineAdminNetworkPolicy objects", Kinds: []Kind{kindANP, kindBANP}, Match: always("not enforced by v3.32")},
		},
		{
			ID: "up.nftables-auto", Severity: Warning,
			Title:   "Felix nftablesMode defaults to Auto: nodes whose kube-proxy runs nftables switch Felix to nftables",
			Happens: "FELIX_NFTABLESMODE's default becomes Auto and the CRD stamps nftablesMode: Auto; Felix uses nftables when kube-proxy has an nftables table and restarts if kube-proxy's mode changes.",
			Action:  "look at spec.kubernetes.kubeProxy.mode: with NFTables, expect Felix's data plane to switch on the move",
			Source:  "§0 row 6, §4, §5 dataplane: nftables",
		},
		{
			ID: "up.policy-name-migration", Severity: Warning,
			Title:   "kube-controllers renames default-tier policies from default.<name> to <name> once calico-node has rolled out",
			Happens: "A policy-name migrator, on by default, creates <name> and deletes default.<name> for every default-tier policy once the calico-node DaemonSet in kube-controllers' namespace is fully rolled out.",
			Action:  "whatever manages these policies by their stored name (GitOps, scripts) must use the bare name, or set KubeControllersConfiguration spec.controllers.policyMigration.enabled: Disabled first",
			Source:  "§0 row 5, §5 policy-name migration",
			Live:    &Check{What: "default-tier policies stored as default.<name>", Kinds: policyKinds, Match: defaultPrefixed},
		},
		{
			ID: "up.route-priority", Severity: Warning,
			Title:   "workload routes get metric 1024 and BIRD exports LOCAL_PREF 2147482623 instead of 100 to BGP peers",
			Happens: "Felix programs local workload routes at ipv4NormalRoutePriority (1024, none before); BIRD sets LOCAL_PREF = 2147483647 - metric, so external iBGP speakers in the same AS see another LOCAL_PREF.",
			Action:  "if the shoot peers with routers outside the cluster (BGPPeer objects), check their policies against the new LOCAL_PREF",
			Source:  "§0 row 8, §5 routing",
			Live:    &Check{What: "BGPPeer objects", Kinds: []Kind{kindBGPPeer}, Match: always("peers with another BGP speaker")},
		},
		{
			ID: "up.cel-validation", Severity: Info,
			Title:   "the v3.32 CRDs add CEL rules, enums and limits: writes v3.31 accepted can be refused",
			Happens: "81 CEL rules (IPPool cidr and blockSize immutable, BGPPeer and policy rules), enums and maxLengths apply to writes; Kubernetes' ratcheting lets an update through when the invalid field is unchanged. With the new CRDs every FelixConfiguration reads back nftablesMode: Auto and every policy tier: default.",
			Action:  "tools that write Calico objects must write valid values (e.g. no lower-case iptablesBackend, no spec.types: [])",
			Handled: "every object calico-pilot renders satisfies the v3.32 schema",
			Source:  "§0 row 7, §2.3, §2.4",
		},
		{
			ID: "up.order", Severity: Info,
			Title:   "CRDs and RBAC first, then calico-node (wait for its rollout), then Typha and kube-controllers",
			Happens: "A v3.32 Typha refuses v3.31 Felix clients, while a v3.31 Typha serves v3.32 ones; kube-controllers v3.32 needs the v3.32 KubeControllersConfiguration CRD (status subresource) before it starts its controllers.",
			Handled: "calico-pilot applies the newer CRDs and the union of both lines' RBAC in the first step, moves calico-node first and Typha and kube-controllers after calico-node's rollout",
			Source:  "§0 rows 3-4, §5 order",
		},
		{
			ID: "up.static-tiers", Severity: Info,
			Title:   "v3.32 creates the tiers kube-admin and kube-baseline; adminnetworkpolicy and baselineadminnetworkpolicy stay behind",
			Happens: "v3.32 no longer creates the static ANP/BANP tiers and does not delete existing ones; it creates kube-admin (order 1000, Pass) and kube-baseline (order 10000000, Pass) at start.",
			Source:  "§5 before you start",
		},
		{
			ID: "up.ebpf-defaults", Severity: Info,
			Title:   "eBPF: bpfRedirectToPeer defaults to Enabled; bpfKubeProxyHealthzPort 0 disables the port",
			Happens: "With the eBPF data plane, host-side tcpdump on a workload veth stops seeing redirected traffic; Maglev and TCP-RST-on-backend-delete are new.",
			Source:  "§5 dataplane: eBPF",
		},
	})...)
}

// downgradeFacts: docs/calico-v3.32.md §6, one entry per row.
func downgradeFacts() []Fact {
	return between(Down, v331, v332, []Fact{
		{
			ID: "down.order", Severity: Info,
			Title:   "Typha and kube-controllers go back before calico-node",
			Happens: "A v3.32 Typha refuses v3.31 Felix, confd and tunnel-IP clients; a v3.31 Typha serves v3.32 clients.",
			Handled: "calico-pilot moves Typha and kube-controllers first and calico-node after them",
			Source:  "§6 order",
		},
		{
			ID: "down.crds-kept", Severity: Info,
			Title:   "the v3.32 CRDs stay: v3.31 ignores the fields it does not know, the new defaults still show on reads",
			Happens: "Re-applying the v3.31.6 CRDs would prune every field v3.32 added from the stored objects; keeping the v3.32 schema keeps them, and v3.31 components ignore unknown fields when decoding. What the new fields meant is lost either way.",
			Handled: "calico-pilot never applies an older CRD schema than the newest the shoot had (providerStatus calicoCRDVersion)",
			Source:  "§6 CRD choice",
		},
		{
			ID: "down.nftables", Severity: Warning,
			Title:   "v3.31 Felix reads nftablesMode Auto as invalid and uses Disabled: nodes on nftables go back to iptables",
			Happens: "v3.31 accepts only Enabled and Disabled; Auto (the v3.32 CRD default, on every FelixConfiguration read) is replaced by the default, Disabled.",
			Action:  "expect a data-plane switch on nodes whose kube-proxy runs nftables; to keep nftables, set nftablesMode: Enabled before going back",
			Source:  "§6 nftables",
		},
		{
			ID: "down.policy-names", Severity: Warning,
			Title:   "default-tier policies stored under their bare name are NotFound for v3.31 calicoctl get/update/delete",
			Happens: "After v3.32's migration a default-tier policy is stored as <x>; v3.31 calicoctl and calico-apiserver map <x> to default.<x> and get NotFound. list still shows it and Felix still enforces it.",
			Action:  "manage such policies with kubectl on crd.projectcalico.org, or recreate them as default.<x> after going back",
			Source:  "§6 policy names (default tier)",
			Live:    &Check{What: "default-tier policies stored without the default. prefix", Kinds: policyKinds, Match: bareDefault},
		},
		{
			ID: "down.policy-tiers", Severity: Blocker,
			Title:   "policies whose stored name does not start with their tier run in another tier under v3.31",
			Happens: "v3.31 Felix takes a policy's tier from the text before the first dot of its stored name (else default), not from spec.tier: a policy allow-dns in tier security runs in default, a.b runs in tier a. v3.31 clients refuse to update such names.",
			Action:  "recreate each as <tier>.<name> (and delete the old one) before going back",
			Source:  "§0 row 9, §6 policy tiers",
			Live:    &Check{What: "tiered policies whose stored name disagrees with spec.tier", Kinds: policyKinds, Match: tierMismatch},
		},
		{
			ID: "down.cluster-network-policy", Severity: Blocker,
			Title:   "ClusterNetworkPolicy objects are not enforced by v3.31",
			Happens: "v3.31 enforces AdminNetworkPolicy/BaselineAdminNetworkPolicy, not ClusterNetworkPolicy; the tiers kube-admin and kube-baseline stay as ordinary tiers and v3.31 recreates adminnetworkpolicy and baselineadminnetworkpolicy.",
			Action:  "rewrite each as an AdminNetworkPolicy or BaselineAdminNetworkPolicy (or a Calico GlobalNetworkPolicy) before going back",
			Source:  "§6 ClusterNetworkPolicy",
			Live:    &Check{What: "ClusterNetworkPolicy objects", Kinds: []Kind{kindCNP}, Match: always("not enforced by v3.31")},
		},
		{
			ID: "down.anp-banp-crds", Severity: Info,
			Title:   "v3.31 needs the AdminNetworkPolicy and BaselineAdminNetworkPolicy CRDs",
			Happens: "v3.31 fails to start when a CRD it watches is missing (the v3.32 notes say v3.32 no longer does, #11023).",
			Handled: "calico-pilot never deletes a Calico CRD, and v3.31's manifest carries both",
			Source:  "§6 ANP/BANP CRDs",
		},
		{
			ID: "down.bgpfilter-fields", Severity: Blocker,
			Title:   "BGPFilter rules using peerType, communities, asPathPrefix, priority or operations match more broadly under v3.31",
			Happens: "v3.31 confd ignores these fields: a Reject rule that matched only on communities rejects everything (inference from the code).",
			Action:  "remove or rewrite such rules before going back",
			Source:  "§2.3 BGPFilter, §6 BGPFilter",
			Live:    &Check{What: "BGPFilter rules with v3.32-only fields", Kinds: []Kind{kindBGPFilter}, Match: bgpFilterNewFields},
		},
		{
			ID: "down.program-cluster-routes", Severity: Blocker,
			Title:   "BGPConfiguration programClusterRoutes: Disabled is ignored by v3.31: BIRD and Felix may both program cluster routes",
			Happens: "v3.31 BIRD always programs routes to remote workloads; with BGP programClusterRoutes Disabled and Felix's Enabled both would program them after going back (inference).",
			Action:  "remove programClusterRoutes from the BGPConfiguration and the FelixConfiguration before going back",
			Source:  "§2.3 BGPConfiguration, §6 programClusterRoutes",
			Live:    &Check{What: "BGPConfigurations with programClusterRoutes: Disabled", Kinds: []Kind{kindBGPConfig}, Match: fieldEquals("Disabled", "spec", "programClusterRoutes")},
		},
		{
			ID: "down.bgppeer-keepalive", Severity: Warning,
			Title:   "BGPPeer keepaliveTime is ignored by v3.31: BIRD's default keepalive applies",
			Happens: "v3.31 confd does not know keepaliveTime.",
			Action:  "check the peer's hold time against BIRD's default keepalive",
			Source:  "§6 BGPPeer keepaliveTime",
			Live:    &Check{What: "BGPPeers with keepaliveTime", Kinds: []Kind{kindBGPPeer}, Match: fieldSet("spec", "keepaliveTime")},
		},
		{
			ID: "down.route-priority", Severity: Warning,
			Title:   "route metrics and LOCAL_PREF go back to the v3.31 values (LOCAL_PREF 100)",
			Happens: "v3.31 ignores the route priority fields of FelixConfiguration and BGPConfiguration.",
			Action:  "if external iBGP routers were adjusted to the v3.32 LOCAL_PREF, adjust them back",
			Source:  "§6 BGPPeer keepaliveTime, route priorities",
		},
		{
			ID: "down.felix-node-selector", Severity: Blocker,
			Title:   "FelixConfigurations scoped with nodeSelector stop applying under v3.31",
			Happens: "v3.31 Felix reads only default and node.<name>; a selector-scoped FelixConfiguration is ignored, so its settings silently stop applying.",
			Action:  "move the settings to node.<name> FelixConfigurations (or to default) before going back",
			Source:  "§2.3 FelixConfiguration, §6 FelixConfiguration nodeSelector",
			Live:    &Check{What: "FelixConfigurations with nodeSelector", Kinds: []Kind{kindFelix}, Match: fieldSet("spec", "nodeSelector")},
		},
		{
			ID: "down.kube-controllers-status", Severity: Info,
			Title:   "KubeControllersConfiguration status goes stale; policyMigration is ignored",
			Happens: "With the v3.32 CRD (status subresource) v3.31 kube-controllers writes status through the main resource, so it silently stays stale; the controllers still run.",
			Source:  "§6 KubeControllersConfiguration",
		},
		{
			ID: "down.kubevirt-ipam", Severity: Blocker,
			Title:   "v3.31 IPAM knows no KubeVirt live migration: do not go back while a VM migrates",
			Happens: "v3.31 knows neither alternateOwnerAttrs (the second pod of a live migration) nor kubeVirtVMAddressPersistence; persistent VM addresses are not kept across VM pod re-creation (inference).",
			Action:  "wait until no live migration is in progress",
			Source:  "§6 IPAM / KubeVirt",
			Live:    &Check{What: "IPAM blocks with an alternate owner (a VM live migration in progress)", Kinds: []Kind{kindIPAMBlock}, Match: alternateOwner},
		},
		{
			ID: "down.native-v3-crds", Severity: Blocker,
			Title:   "a shoot on native projectcalico.org/v3 CRDs cannot run v3.31",
			Happens: "After a DatastoreMigration, or an install from calico-v3-crds.yaml, there are no crd.projectcalico.org CRDs for v3.31 to use.",
			Action:  "do not go back; v3.31 cannot run on this shoot",
			Source:  "§6 native v3 CRD mode",
			Live:    &Check{What: "CRDs of the group projectcalico.org", Kinds: []Kind{kindCRD}, Match: fieldEquals("projectcalico.org", "spec", "group")},
		},
		{
			ID: "down.env", Severity: Info,
			Title:   "v3.32-only environment variables are unknown to v3.31",
			Happens: "v3.31 logs \"Ignoring unknown config param\" for FELIX_/TYPHA_ variables it does not know and ignores them.",
			Handled: "calico-pilot renders each component with its own line's environment",
			Source:  "§4, §6 env vars",
		},
	})
}

// always matches every object with the given reason.
func always(reason string) func(map[string]any) string {
	return func(map[string]any) string { return reason }
}

// fieldSet matches objects that set a field.
func fieldSet(path ...string) func(map[string]any) string {
	return func(obj map[string]any) string {
		v, ok := lookup(obj, path...)
		if !ok || v == nil || v == "" {
			return ""
		}
		return fmt.Sprintf("%s: %v", strings.Join(path, "."), v)
	}
}

// fieldEquals matches objects whose field has a value.
func fieldEquals(want string, path ...string) func(map[string]any) string {
	return func(obj map[string]any) string {
		if v, _ := lookup(obj, path...); v == want {
			return fmt.Sprintf("%s: %s", strings.Join(path, "."), want)
		}
		return ""
	}
}

// lookup returns the value at path; not found when a step is missing or not an object (the error
// NestedFieldNoCopy returns then says only that).
func lookup(obj map[string]any, path ...string) (any, bool) {
	v, found, err := unstructured.NestedFieldNoCopy(obj, path...)
	return v, found && err == nil
}

func name(obj map[string]any) string {
	n, _ := lookup(obj, "metadata", "name")
	s, _ := n.(string)
	return s
}

// specTier is spec.tier, "default" when unset (the v3.32 CRD default; v3.31 meant the same).
func specTier(obj map[string]any) string {
	t, _ := lookup(obj, "spec", "tier")
	if s, _ := t.(string); s != "" {
		return s
	}
	return "default"
}

// nameTier is the tier v3.31 derives from a stored name: the text before the first dot, else default.
func nameTier(n string) string {
	if t, _, ok := strings.Cut(n, "."); ok {
		return t
	}
	return "default"
}

func defaultPrefixed(obj map[string]any) string {
	if specTier(obj) == "default" && strings.HasPrefix(name(obj), "default.") {
		return "will be renamed to " + strings.TrimPrefix(name(obj), "default.")
	}
	return ""
}

func bareDefault(obj map[string]any) string {
	if specTier(obj) == "default" && !strings.Contains(name(obj), ".") {
		return "v3.31 clients look for default." + name(obj)
	}
	return ""
}

func tierMismatch(obj map[string]any) string {
	if t, n := specTier(obj), nameTier(name(obj)); t != n {
		return fmt.Sprintf("in tier %s, v3.31 runs it in tier %s", t, n)
	}
	return ""
}

// bgpFilterNewFields lists the rules of a BGPFilter that use fields v3.31 ignores.
func bgpFilterNewFields(obj map[string]any) string {
	var found []string
	for _, list := range []string{"exportV4", "exportV6", "importV4", "importV6"} {
		rules, _ := lookup(obj, "spec", list)
		items, _ := rules.([]any)
		for i, r := range items {
			m, _ := r.(map[string]any)
			for _, f := range []string{"peerType", "communities", "asPathPrefix", "priority", "operations"} {
				if v, ok := m[f]; ok && v != nil {
					found = append(found, fmt.Sprintf("spec.%s[%d].%s", list, i, f))
				}
			}
		}
	}
	return strings.Join(found, ", ")
}

// alternateOwner matches IPAM blocks with an allocation that has an alternate owner.
func alternateOwner(obj map[string]any) string {
	attrs, _ := lookup(obj, "spec", "attributes")
	items, _ := attrs.([]any)
	for i, a := range items {
		m, _ := a.(map[string]any)
		if alt, ok := m["alternateOwnerAttrs"].(map[string]any); ok && len(alt) > 0 {
			return fmt.Sprintf("spec.attributes[%d].alternateOwnerAttrs is set", i)
		}
	}
	return ""
}
