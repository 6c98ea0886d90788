package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// ValidateIPAutoDetectionMethod checks a calico-node address autodetection method ("option" or
// "option=parameter") for the given family (rules.AutoDetectionMethod). The cidr option takes one
// CIDR or a comma-separated list (as calico-node does); interface and skip-interface take
// comma-separated Go regular expressions.
func ValidateIPAutoDetectionMethod(method string, family gardencorev1beta1.IPFamily, fldPath *field.Path) field.ErrorList {
	return rules.AutoDetectionMethod(method, family, fldPath)
}
