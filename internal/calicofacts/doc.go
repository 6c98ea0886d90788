// Package calicofacts holds what moving a shoot between two Calico lines does that calico-pilot's
// render cannot show: the upgrade and downgrade facts of docs/calico-v3.32.md
// (§0, §5, §6) as data, one entry each, with what happens, what to do, and whether calico-pilot
// handles it itself. Some are checked against the shoot (live checks: objects that the move would
// break, e.g. AdminNetworkPolicies going up, ClusterNetworkPolicies going down); the others are
// always shown. plan shows them, the Shoot webhook warns with them, docs/calico-downgrade.md lists
// them (a test keeps the three in step).
package calicofacts
