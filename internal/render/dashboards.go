package render

import (
	"encoding/json"
)

// Plutono dashboards of the seed's shoot monitoring (ConfigMap calico-dashboards, one JSON file
// per dashboard). File names and uids are the reference extension's, so bookmarks and links keep
// working; every query goes to the shoot Prometheus, whose Plutono data source is named
// "prometheus", and only uses series the ScrapeConfigs keep (KeepFelix, KeepTypha, KeepBird).

// DataSource is the name of the shoot Prometheus data source in the landscape's Plutono.
const DataSource = "prometheus"

// Dashboard file names in the ConfigMap and their uids.
const (
	DashboardFelix    = "calico-felix-dashboard.json"
	DashboardTypha    = "calico-typha-dashboard.json"
	DashboardBird     = "calico-bird-dashboard.json"
	DashboardUIDFelix = "calico-felix-dashboard"
	DashboardUIDTypha = "calico-typha-dashboard"
	DashboardUIDBird  = "ZFX1vGuHk"
)

type dashboard struct {
	UID           string     `json:"uid"`
	Title         string     `json:"title"`
	Description   string     `json:"description"`
	Tags          []string   `json:"tags"`
	Editable      bool       `json:"editable"`
	SchemaVersion int        `json:"schemaVersion"`
	Refresh       string     `json:"refresh"`
	Time          timeRange  `json:"time"`
	Templating    templating `json:"templating"`
	Panels        []panel    `json:"panels"`
}

type timeRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type templating struct {
	List []variable `json:"list"`
}

// variable is a query variable of label values (multi-select, "All" by default).
type variable struct {
	Name       string  `json:"name"`
	Label      string  `json:"label"`
	Type       string  `json:"type"`
	Datasource string  `json:"datasource"`
	Query      string  `json:"query"`
	Refresh    int     `json:"refresh"`
	Multi      bool    `json:"multi"`
	IncludeAll bool    `json:"includeAll"`
	Current    current `json:"current"`
	Sort       int     `json:"sort"`
}

type current struct {
	Text  string `json:"text"`
	Value string `json:"value"`
}

type panel struct {
	ID          int      `json:"id"`
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Datasource  string   `json:"datasource,omitempty"`
	GridPos     gridPos  `json:"gridPos"`
	Targets     []target `json:"targets,omitempty"`
	// Graph panels.
	Lines     bool         `json:"lines,omitempty"`
	Linewidth int          `json:"linewidth,omitempty"`
	Fill      int          `json:"fill,omitempty"`
	Legend    *graphLegend `json:"legend,omitempty"`
	Yaxes     []axis       `json:"yaxes,omitempty"`
	Collapsed *bool        `json:"collapsed,omitempty"`
}

type graphLegend struct {
	Show    bool `json:"show"`
	Values  bool `json:"values"`
	Current bool `json:"current"`
	Max     bool `json:"max"`
}

type axis struct {
	Format  string `json:"format"`
	Show    bool   `json:"show"`
	Min     *int   `json:"min,omitempty"`
	LogBase int    `json:"logBase"`
}

type gridPos struct {
	H int `json:"h"`
	W int `json:"w"`
	X int `json:"x"`
	Y int `json:"y"`
}

type target struct {
	Expr         string `json:"expr"`
	LegendFormat string `json:"legendFormat"`
	RefID        string `json:"refId"`
	Interval     string `json:"interval,omitempty"`
}

// query is one line of a graph.
type query struct{ expr, legend string }

// graph is a time-series panel: title, unit (Plutono's format names) and its queries.
type graph struct {
	title, description, unit string
	queries                  []query
}

// section is a row of graphs under a heading.
type section struct {
	title  string
	graphs []graph
}

// build lays the sections out two graphs wide, each section under a row panel.
func build(uid, title, description string, vars []variable, sections []section) dashboard {
	d := dashboard{
		UID: uid, Title: title, Description: description, Tags: []string{"calico", "network"},
		SchemaVersion: 27, Refresh: "1m", Time: timeRange{From: "now-3h", To: "now"},
		Templating: templating{List: vars},
	}
	id, y := 1, 0
	zero := 0
	for _, s := range sections {
		d.Panels = append(d.Panels, panel{ID: id, Type: "row", Title: s.title, GridPos: gridPos{H: 1, W: 24, X: 0, Y: y}, Collapsed: new(bool)})
		id++
		y++
		for i, g := range s.graphs {
			p := panel{
				ID: id, Type: "graph", Title: g.title, Description: g.description, Datasource: DataSource,
				GridPos: gridPos{H: 8, W: 12, X: (i % 2) * 12, Y: y + (i/2)*8},
				Lines:   true, Linewidth: 1, Fill: 1,
				Legend: &graphLegend{Show: true, Values: true, Current: true, Max: true},
				Yaxes:  []axis{{Format: g.unit, Show: true, Min: &zero, LogBase: 1}, {Format: "short", Show: false, LogBase: 1}},
			}
			for j, q := range g.queries {
				p.Targets = append(p.Targets, target{Expr: q.expr, LegendFormat: q.legend, RefID: string(rune('A' + j))})
			}
			d.Panels = append(d.Panels, p)
			id++
		}
		y += (len(s.graphs) + 1) / 2 * 8
	}
	return d
}

func labelVariable(name, label, query string) variable {
	return variable{
		Name: name, Label: label, Type: "query", Datasource: DataSource, Query: query,
		Refresh: 2, Multi: true, IncludeAll: true, Current: current{Text: "All", Value: "$__all"}, Sort: 1,
	}
}

// dashboards returns the three dashboards, keyed by file name. They do not depend on the shoot's
// configuration: a dashboard of a component that is off shows no data.
func dashboards() map[string]string {
	out := map[string]string{}
	for key, d := range map[string]dashboard{
		DashboardFelix: felixDashboard(),
		DashboardTypha: typhaDashboard(),
		DashboardBird:  birdDashboard(),
	} {
		b, err := json.Marshal(d)
		if err != nil {
			panic(err) // plain structs of strings, ints and bools
		}
		out[key] = string(b)
	}
	return out
}

func felixDashboard() dashboard {
	sel := `{job="felix-metrics",node=~"$node"}`
	return build(DashboardUIDFelix, "Calico Felix", "Felix, Calico's per-node agent: endpoints and policies it programs, its dataplane (iptables, ipsets, routes) and its errors.",
		[]variable{labelVariable("node", "Node", `label_values(felix_active_local_endpoints{job="felix-metrics"}, node)`)},
		[]section{
			{"Endpoints and policies", []graph{
				{"Active local endpoints", "Workload and host endpoints Felix programs on the node.", "short", []query{{`sum by (node) (felix_active_local_endpoints` + sel + `)`, "{{node}}"}}},
				{"Active local policies", "Policies that apply to endpoints on the node.", "short", []query{{`sum by (node) (felix_active_local_policies` + sel + `)`, "{{node}}"}}},
				{"Active local selectors", "Label selectors in use by the node's policies.", "short", []query{{`sum by (node) (felix_active_local_selectors` + sel + `)`, "{{node}}"}}},
				{"Cluster size seen by Felix", "Hosts, workload endpoints and host endpoints in the cluster.", "short", []query{
					{`max(felix_cluster_num_hosts` + sel + `)`, "hosts"},
					{`max(felix_cluster_num_workload_endpoints` + sel + `)`, "workload endpoints"},
					{`max(felix_cluster_num_host_endpoints` + sel + `)`, "host endpoints"},
				}},
			}},
			{"Dataplane", []graph{
				{"Dataplane apply time (p90 / p99)", "Time to apply a batch of changes to the dataplane.", "s", []query{
					{`max by (node) (felix_int_dataplane_apply_time_seconds{job="felix-metrics",node=~"$node",quantile="0.9"})`, "p90 {{node}}"},
					{`max by (node) (felix_int_dataplane_apply_time_seconds{job="felix-metrics",node=~"$node",quantile="0.99"})`, "p99 {{node}}"},
				}},
				{"Dataplane messages", "Updates the calculation graph sends to the dataplane, by type.", "ops", []query{{`sum by (type) (rate(felix_int_dataplane_messages` + sel + `[5m]))`, "{{type}}"}}},
				{"Calculation graph update time (p99)", "Time to process one update in the calculation graph.", "s", []query{{`max by (node) (felix_calc_graph_update_time_seconds{job="felix-metrics",node=~"$node",quantile="0.99"})`, "{{node}}"}}},
				{"Resyncs", "Datastore resyncs started.", "ops", []query{{`sum by (node) (rate(felix_resyncs_started` + sel + `[5m]))`, "{{node}}"}}},
			}},
			{"iptables and ipsets", []graph{
				{"iptables rules", "Rules Felix programs, by IP version and table.", "short", []query{{`sum by (ip_version, table) (felix_iptables_rules` + sel + `)`, "IPv{{ip_version}} {{table}}"}}},
				{"iptables chains", "Chains Felix programs, by IP version and table.", "short", []query{{`sum by (ip_version, table) (felix_iptables_chains` + sel + `)`, "IPv{{ip_version}} {{table}}"}}},
				{"iptables-restore and -save calls", "How often Felix rewrites and reads iptables.", "ops", []query{
					{`sum by (node) (rate(felix_iptables_restore_calls` + sel + `[5m]))`, "restore {{node}}"},
					{`sum by (node) (rate(felix_iptables_save_calls` + sel + `[5m]))`, "save {{node}}"},
				}},
				{"IP sets", "IP sets Felix owns and all IP sets on the node.", "short", []query{
					{`sum by (node) (felix_ipsets_calico` + sel + `)`, "calico {{node}}"},
					{`sum by (node) (felix_ipsets_total` + sel + `)`, "total {{node}}"},
				}},
			}},
			{"Routes", []graph{
				{"Route table list time (p99)", "Time to list the routes of the node.", "s", []query{{`max by (node) (felix_route_table_list_seconds{job="felix-metrics",node=~"$node",quantile="0.99"})`, "{{node}}"}}},
				{"Route sync time per interface (p99)", "Time to sync the routes of one interface.", "s", []query{{`max by (node) (felix_route_table_per_iface_sync_seconds{job="felix-metrics",node=~"$node",quantile="0.99"})`, "{{node}}"}}},
			}},
			{"Errors", []graph{
				{"Dataplane failures", "Failed attempts to update the dataplane.", "ops", []query{{`sum by (node) (rate(felix_int_dataplane_failures` + sel + `[5m]))`, "{{node}}"}}},
				{"iptables and ipset errors", "Failed iptables-restore, iptables-save and ipset calls.", "ops", []query{
					{`sum by (node) (rate(felix_iptables_restore_errors` + sel + `[5m]))`, "iptables-restore {{node}}"},
					{`sum by (node) (rate(felix_iptables_save_errors` + sel + `[5m]))`, "iptables-save {{node}}"},
					{`sum by (node) (rate(felix_ipset_errors` + sel + `[5m]))`, "ipset {{node}}"},
				}},
				{"Logged errors", "Errors Felix logged.", "ops", []query{{`sum by (node) (rate(felix_log_errors` + sel + `[5m]))`, "{{node}}"}}},
				{"Datastore state", "Felix's resync state (3 = in sync).", "short", []query{{`max by (node) (felix_resync_state` + sel + `)`, "{{node}}"}}},
			}},
		})
}

func typhaDashboard() dashboard {
	sel := `{job="typha-metrics",pod=~"$pod"}`
	return build(DashboardUIDTypha, "Calico Typha", "Typha fans the datastore out to the Felix agents: its client connections, their latency, the snapshots and updates it sends.",
		[]variable{labelVariable("pod", "Pod", `label_values(typha_connections_active{job="typha-metrics"}, pod)`)},
		[]section{
			{"Connections", []graph{
				{"Active connections", "Felix agents connected to each Typha.", "short", []query{{`sum by (pod) (typha_connections_active` + sel + `)`, "{{pod}}"}}},
				{"Connections accepted and dropped", "New connections, and connections Typha dropped (rebalancing or failures).", "ops", []query{
					{`sum by (pod) (rate(typha_connections_accepted` + sel + `[5m]))`, "accepted {{pod}}"},
					{`sum by (pod) (rate(typha_connections_dropped` + sel + `[5m]))`, "dropped {{pod}}"},
				}},
			}},
			{"Latency", []graph{
				{"Ping latency (p50 / p99)", "Round trip of Typha's pings to its clients.", "s", []query{
					{`max by (pod) (typha_ping_latency{job="typha-metrics",pod=~"$pod",quantile="0.5"})`, "p50 {{pod}}"},
					{`max by (pod) (typha_ping_latency{job="typha-metrics",pod=~"$pod",quantile="0.99"})`, "p99 {{pod}}"},
				}},
				{"Client latency (p99)", "Time from an update reaching Typha to its being sent to a client.", "s", []query{{`max by (pod) (typha_client_latency_secs{job="typha-metrics",pod=~"$pod",quantile="0.99"})`, "{{pod}}"}}},
			}},
			{"Snapshots", []graph{
				{"Snapshot size", "Size of the snapshot sent to a new client.", "bytes", []query{
					{`max by (pod) (typha_snapshot_raw_bytes` + sel + `)`, "raw {{pod}}"},
					{`max by (pod) (typha_snapshot_compressed_bytes` + sel + `)`, "compressed {{pod}}"},
				}},
				{"Snapshot send time (p99)", "Time to send the snapshot to a new client.", "s", []query{{`max by (pod) (typha_client_snapshot_send_secs{job="typha-metrics",pod=~"$pod",quantile="0.99"})`, "{{pod}}"}}},
			}},
			{"Updates", []graph{
				{"Updates", "Datastore updates Typha processed and skipped (no change).", "ops", []query{
					{`sum by (pod) (rate(typha_updates_total` + sel + `[5m]))`, "total {{pod}}"},
					{`sum by (pod) (rate(typha_updates_skipped` + sel + `[5m]))`, "skipped {{pod}}"},
				}},
				{"Breadcrumb size (p99)", "Updates per breadcrumb, the unit Typha hands to its clients.", "short", []query{{`max by (pod) (typha_breadcrumb_size{job="typha-metrics",pod=~"$pod",quantile="0.99"})`, "{{pod}}"}}},
				{"Logged errors", "Errors Typha logged.", "ops", []query{{`sum by (pod) (rate(typha_log_errors` + sel + `[5m]))`, "{{pod}}"}}},
			}},
		})
}

func birdDashboard() dashboard {
	sel := `{job="bird-metrics",node=~"$node"}`
	return build(DashboardUIDBird, "Calico BIRD", "BIRD, Calico's BGP daemon (bird-exporter sidecar, providerConfig birdExporter.enabled): BGP sessions and the prefixes they carry.",
		[]variable{labelVariable("node", "Node", `label_values(bird_protocol_up{job="bird-metrics"}, node)`)},
		[]section{
			{"Sessions", []graph{
				{"BGP sessions up", "Established BGP sessions per node.", "short", []query{{`sum by (node) (bird_protocol_up{job="bird-metrics",node=~"$node",proto="BGP"})`, "{{node}}"}}},
				{"BGP sessions down", "BGP sessions that are not established, by peer.", "short", []query{{`bird_protocol_up{job="bird-metrics",node=~"$node",proto="BGP"} == 0`, "{{node}} {{name}}"}}},
				{"Session uptime", "Time since each BGP session last changed state.", "s", []query{{`max by (node, name) (bird_protocol_uptime{job="bird-metrics",node=~"$node",proto="BGP"})`, "{{node}} {{name}}"}}},
			}},
			{"Prefixes", []graph{
				{"Prefixes imported", "Routes learnt from peers, per node and IP version.", "short", []query{{`sum by (node, ip_version) (bird_protocol_prefix_import_count` + sel + `)`, "{{node}} IPv{{ip_version}}"}}},
				{"Prefixes exported", "Routes announced to peers, per node and IP version.", "short", []query{{`sum by (node, ip_version) (bird_protocol_prefix_export_count` + sel + `)`, "{{node}} IPv{{ip_version}}"}}},
			}},
		})
}
