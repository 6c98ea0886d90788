package render

import (
	"encoding/json"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

type dashboard struct {
	Title         string   `json:"title"`
	UID           string   `json:"uid"`
	SchemaVersion int      `json:"schemaVersion"`
	Tags          []string `json:"tags"`
	Panels        []panel  `json:"panels"`
}

type panel struct {
	ID      int      `json:"id"`
	Title   string   `json:"title"`
	Type    string   `json:"type"`
	GridPos gridPos  `json:"gridPos"`
	Targets []target `json:"targets"`
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
}

func newDashboard(uid, title string, queries [][3]string) dashboard {
	d := dashboard{Title: title, UID: uid, SchemaVersion: 39, Tags: []string{"calico", "network"}}
	for i, q := range queries {
		d.Panels = append(d.Panels, panel{
			ID: i + 1, Title: q[0], Type: "timeseries",
			GridPos: gridPos{H: 8, W: 12, X: (i % 2) * 12, Y: (i / 2) * 8},
			Targets: []target{{Expr: q[1], LegendFormat: q[2], RefID: "A"}},
		})
	}
	return d
}

// dashboards returns the Grafana dashboards of the running components, keyed by file name.
func dashboards(o *values.Options) map[string]string {
	out := map[string]string{}
	add := func(key string, d dashboard) {
		b, _ := json.Marshal(d) // plain structs of strings and ints cannot fail to marshal
		out[key] = string(b)
	}
	add("calico-felix-dashboard.json", newDashboard("calico-felix", "Calico Felix", [][3]string{
		{"Active local endpoints", `sum by (pod) (felix_active_local_endpoints)`, "{{pod}}"},
		{"Dataplane apply time (p99, s)", `max by (pod) (felix_int_dataplane_apply_time_seconds{quantile="0.99"})`, "{{pod}}"},
		{"Policies", `sum by (pod) (felix_cluster_num_policies)`, "{{pod}}"},
		{"Resyncs", `sum by (pod) (rate(felix_resyncs_started[5m]))`, "{{pod}}"},
	}))
	if o.Typha {
		add("calico-typha-dashboard.json", newDashboard("calico-typha", "Calico Typha", [][3]string{
			{"Connections", `sum by (pod) (typha_connections_active)`, "{{pod}}"},
			{"Snapshot send time (p99, s)", `max by (pod) (typha_client_snapshot_send_secs{quantile="0.99"})`, "{{pod}}"},
		}))
	}
	if o.BirdExporter && !o.NonPrivileged {
		add("calico-bird-dashboard.json", newDashboard("calico-bird", "Calico BIRD", [][3]string{
			{"BGP sessions up", `sum by (pod) (bird_protocol_up)`, "{{pod}}"},
			{"Prefixes exported", `sum by (pod) (bird_protocol_prefix_export_count)`, "{{pod}}"},
			{"Prefixes imported", `sum by (pod) (bird_protocol_prefix_import_count)`, "{{pod}}"},
		}))
	}
	return out
}
