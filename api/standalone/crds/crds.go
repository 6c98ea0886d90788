package crds

import (
	_ "embed"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed standalone.calico-pilot.dev_clusters.yaml
var clusterYAML []byte

// ClusterYAML is the Cluster CRD's manifest as generated.
func ClusterYAML() []byte { return clusterYAML }

// Cluster returns a new copy of the Cluster CRD.
func Cluster() (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(clusterYAML, crd); err != nil {
		return nil, fmt.Errorf("decoding the embedded Cluster CRD: %w", err)
	}
	crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	return crd, nil
}
