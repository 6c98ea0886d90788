// Command managemanifest writes deploy/manage/manage.yaml, the plain manifest of `calico-pilot
// manage`: the calico-pilot-manage chart rendered with its defaults into the namespace calico-pilot
// (the Namespace included), with the Cluster CRD first. hack/generate.sh runs it, so the manifest
// never drifts from the chart.
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/engine"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: managemanifest CHART_DIR OUT")
		os.Exit(2)
	}
	out, err := render(os.Args[1])
	if err == nil {
		err = os.WriteFile(os.Args[2], out, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "managemanifest:", err)
		os.Exit(1)
	}
}

// order is the manifest's order of the chart's templates: what the others need first.
var order = []string{"namespace.yaml", "rbac.yaml", "service.yaml", "deployment.yaml"}

func render(dir string) ([]byte, error) {
	charter, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", dir, err)
	}
	chrt, ok := charter.(*chartv2.Chart)
	if !ok {
		return nil, fmt.Errorf("%s: not a v2 chart", dir)
	}
	values := map[string]any{"namespace": map[string]any{"create": true}}
	rv, err := util.ToRenderValuesWithSchemaValidation(chrt, values, common.ReleaseOptions{Name: "calico-pilot-manage", Namespace: "calico-pilot", Revision: 1, IsInstall: true}, nil, false)
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	files, err := engine.Engine{Strict: true}.Render(chrt, rv)
	if err != nil {
		return nil, fmt.Errorf("rendering: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("# calico-pilot manage: the in-cluster controller of a cluster without Gardener (docs/manage.md).\n")
	b.WriteString("# Generated from deploy/calico-pilot-manage with its default values (hack/generate.sh): do not edit.\n")
	b.WriteString("# kubectl apply --server-side -f deploy/manage/manage.yaml\n")
	for _, name := range order {
		doc := strings.TrimSpace(files[chrt.Name()+"/templates/"+name])
		if doc == "" {
			continue
		}
		if name == "rbac.yaml" {
			for _, crd := range chrt.CRDObjects() {
				b.WriteString("---\n")
				b.WriteString(strings.TrimPrefix(strings.TrimSpace(string(crd.File.Data)), "---\n"))
				b.WriteString("\n")
			}
		}
		b.WriteString("---\n")
		b.WriteString(doc)
		b.WriteString("\n")
	}
	return b.Bytes(), nil
}
