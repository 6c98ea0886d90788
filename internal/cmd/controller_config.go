package cmd

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/validation"
)

// loadControllerConfig is the one way a ControllerConfiguration file is read: through safefile
// (readInput), decoded strictly and validated, for the controller's --config-file, render's
// --controller-config and swap-check's --config alike, so the CLI accepts exactly the files the
// controller starts with. Field errors come back as a list (each command reports them its way),
// a file that cannot be read as the error.
func loadControllerConfig(path string) (*configv1alpha1.ControllerConfiguration, field.ErrorList, error) {
	data, err := readInput(path, nil)
	if err != nil {
		return nil, nil, err
	}
	cfg, errs := decode.ControllerConfiguration(data)
	if len(errs) == 0 {
		errs = validation.ValidateControllerConfiguration(cfg)
	}
	if len(errs) > 0 {
		return nil, errs, nil
	}
	return cfg, nil, nil
}
