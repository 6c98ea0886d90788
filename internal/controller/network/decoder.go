package network

import (
	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
)

// NewConfigDecoder returns the production decoder: pipeline.DecodeExistingNetworkConfig, strict
// decoding (unknown fields are errors) and the same validation the admission webhook runs, with
// paths rooted at spec.providerConfig, except that the rules going beyond the reference extension
// are not errors here (ratcheting: the renderer reports them as findings).
func NewConfigDecoder() ConfigDecoder {
	return ConfigDecoderFunc(func(raw []byte, ipFamilies []string) (*calicov1alpha1.NetworkConfig, error) {
		cfg, errs := pipeline.DecodeExistingNetworkConfig(raw, ipFamilies)
		if len(errs) > 0 {
			return nil, errs.ToAggregate()
		}
		return cfg, nil
	})
}
