package plan

import (
	"encoding/json"
	"fmt"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Choice is the Calico deployment an offline command renders and why.
type Choice struct {
	// Deployment is what each component runs.
	Deployment calicoversion.Deployment
	// Source says where the release came from, for people.
	Source string
	// Decision is the controller's decision the choice follows (zero for an explicit release).
	Decision calicoversion.Decision
}

// Note is the line render prints on stderr.
func (c Choice) Note() string {
	d := c.Deployment
	if d.IsSteady() {
		return fmt.Sprintf("note: rendered Calico %s (%s): %s", d.Node.Line(), d.Node, c.Source)
	}
	return fmt.Sprintf("note: rendered Calico %s: %s", d, c.Source)
}

// NetworkFacts are the facts of a Network's providerStatus for calicoversion.Decide (zero when it
// records nothing).
func NetworkFacts(network *extensionsv1alpha1.Network) (calicoversion.Facts, error) {
	var f calicoversion.Facts
	if network == nil || network.Status.ProviderStatus == nil || len(network.Status.ProviderStatus.Raw) == 0 {
		return f, nil
	}
	var st calicov1alpha1.NetworkStatus
	if err := json.Unmarshal(network.Status.ProviderStatus.Raw, &st); err != nil {
		return f, fmt.Errorf("the Network's status.providerStatus does not decode: %w", err)
	}
	f.Recorded, f.RecordedCRDs = st.CalicoVersion, st.CalicoCRDVersion
	f.Deployed = st.CalicoVersion != ""
	if m := st.CalicoMove; m != nil {
		f.Moving = &calicoversion.MoveRecord{From: m.From, To: m.To, Phase: m.Phase, Started: m.Started.Time, Rollout: m.Rollout}
	}
	return f, nil
}

// RecordedCalico is what a Network's providerStatus says its shoot runs (calicoVersion, calicoMove,
// calicoCRDVersion), as calicoversion.Decide reads it; zero when nothing is recorded (the caller
// decides what an unrecorded shoot runs).
func RecordedCalico(network *extensionsv1alpha1.Network) (calicoversion.Deployment, error) {
	f, err := NetworkFacts(network)
	if err != nil || !f.Deployed {
		return calicoversion.Deployment{}, err
	}
	d, err := calicoversion.Default().Decide(f)
	if err != nil {
		return calicoversion.Deployment{}, fmt.Errorf("the Network's %w", err)
	}
	return d.Deployment(), nil
}

// ChooseCalico decides the Calico deployment of an offline render as the controller does
// (calicoversion.Decide) for a shoot of Kubernetes version kubernetes, with no rollout: an explicit
// release or line (render --calico-version, plan --target-version) first; else the decision from
// the shoot's pin, the Network's record (deployed: the shoot runs a Calico although its Network records
// none, e.g. the reference's), the operator's calico.defaultVersion and the catalogue. The CRDs never
// go below what the Network records (calicoCRDVersion).
func ChooseCalico(explicit string, cfg *calicov1alpha1.NetworkConfig, ctrl *configv1alpha1.ControllerConfiguration, network *extensionsv1alpha1.Network, kubernetes string, deployed bool) (Choice, error) {
	cat := calicoversion.Default()
	f, err := NetworkFacts(network)
	if err != nil {
		return Choice{}, err
	}
	f.Deployed = f.Deployed || deployed
	f.Kubernetes = kubernetes
	if explicit != "" {
		r, err := cat.Resolve(explicit)
		if err != nil {
			return Choice{}, err
		}
		crds, err := cat.Recorded(f.RecordedCRDs)
		if err != nil {
			return Choice{}, fmt.Errorf("the Network's status.providerStatus.calicoCRDVersion: %w", err)
		}
		return Choice{Deployment: calicoversion.SteadyWithCRDs(r, crds.Release), Source: "asked for"}, nil
	}
	if cfg != nil {
		f.Pin = cfg.CalicoVersion
	}
	if ctrl != nil && ctrl.Calico != nil {
		f.OperatorDefault = ctrl.Calico.DefaultVersion
		if f.OperatorDefault != nil {
			if _, err := cat.Resolve(*f.OperatorDefault); err != nil {
				return Choice{}, fmt.Errorf("ControllerConfiguration calico.defaultVersion: %w", err)
			}
		}
	}
	d, err := cat.Decide(f)
	if err != nil {
		return Choice{}, fmt.Errorf("the Network's %w", err)
	}
	source := d.Message
	if d.Moving() && !d.StartedNow {
		source = "the Network's move in progress (status.providerStatus.calicoMove): " + d.Message
	}
	if d.StartedNow {
		// An offline render shows the first step of the move the controller would start.
		source = d.Message
	}
	return Choice{Deployment: d.Deployment(), Source: source, Decision: d}, nil
}
