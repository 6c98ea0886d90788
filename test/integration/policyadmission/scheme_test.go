package policyadmission

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

func frameworkScheme() (*runtime.Scheme, error) {
	return testenv.NewScheme(admissionregistrationv1.AddToScheme, projectcalicov1.AddToScheme)
}
