package standalone

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// runsWhere reads every DaemonSet and Deployment of ns that runs a Calico image (a repository whose
// last path element's parent is calico, as quay.io/calico/node) and sorts them by the release their
// tags name: release's, and the others'. "runs on every component" is said only when no workload of
// the namespace runs another release, managed by calico-pilot or not.
func (a *Applier) runsWhere(ctx context.Context, ns, release string) (same []string, others []string, err error) {
	var pods []struct {
		name string
		spec corev1.PodSpec
	}
	var dss appsv1.DaemonSetList
	if err := a.Client.List(ctx, &dss, client.InNamespace(ns)); err != nil {
		return nil, nil, fmt.Errorf("listing the DaemonSets of %s: %w", ns, err)
	}
	for _, d := range dss.Items {
		pods = append(pods, struct {
			name string
			spec corev1.PodSpec
		}{"DaemonSet " + d.Name, d.Spec.Template.Spec})
	}
	var deps appsv1.DeploymentList
	if err := a.Client.List(ctx, &deps, client.InNamespace(ns)); err != nil {
		return nil, nil, fmt.Errorf("listing the Deployments of %s: %w", ns, err)
	}
	for _, d := range deps.Items {
		pods = append(pods, struct {
			name string
			spec corev1.PodSpec
		}{"Deployment " + d.Name, d.Spec.Template.Spec})
	}
	for _, p := range pods {
		var releases []string
		for _, c := range slices.Concat(p.spec.InitContainers, p.spec.Containers) {
			repo, tag := calicoversion.SplitImage(c.Image)
			parts := strings.Split(repo, "/")
			if len(parts) < 2 || parts[len(parts)-2] != "calico" {
				continue
			}
			if n, ok := calicoversion.ReleaseOfTag(tag); ok && !slices.Contains(releases, n.String()) {
				releases = append(releases, n.String())
			}
		}
		switch {
		case len(releases) == 0:
		case len(releases) == 1 && releases[0] == release:
			same = append(same, p.name)
		default:
			others = append(others, fmt.Sprintf("%s (%s)", p.name, strings.Join(releases, ", ")))
		}
	}
	slices.Sort(same)
	slices.Sort(others)
	return same, others, nil
}
