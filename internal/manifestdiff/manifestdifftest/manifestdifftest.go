// Package manifestdifftest holds the manifests the tests of manifestdiff and plan share; imported
// only by tests.
package manifestdifftest

import "strings"

// IPPoolCRD is the CustomResourceDefinition of Calico's IPPool (CalicoCRD "IPPool", "ippools").
func IPPoolCRD(specProperties ...string) string {
	return CalicoCRD("IPPool", "ippools", specProperties...)
}

// CalicoCRD is a cluster-scoped CustomResourceDefinition of crd.projectcalico.org with one version,
// v1, served and stored, whose spec schema has specProperties, each one YAML line
// "name: {type: string}".
func CalicoCRD(kind, plural string, specProperties ...string) string {
	var b strings.Builder
	b.WriteString(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ` + plural + `.crd.projectcalico.org}
spec:
  group: crd.projectcalico.org
  scope: Cluster
  names: {kind: ` + kind + `, plural: ` + plural + `}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
`)
	for _, p := range specProperties {
		b.WriteString("              " + p + "\n")
	}
	return b.String()
}
