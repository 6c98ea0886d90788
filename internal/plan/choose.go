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
	return calicoversion.RecordedFacts(&st), nil
}

// ChooseCalico decides the Calico deployment of an offline render as the controller does
// (calicoversion.Decide) for a shoot of Kubernetes version kubernetes, with no rollout: an explicit
// release or line (render --calico-version, plan --target-version) first; else the decision from
// the shoot's pin, the Network's record (deployed: the shoot runs a Calico although its Network records
// none, e.g. the reference's), the operator's calico.defaultVersion and the catalogue. The CRDs never
// go below what the Network records (calicoCRDVersion). avail says which releases the landscape's
// image vector makes available for the shoot (nil: every release), as the controller decides with it.
func ChooseCalico(explicit string, cfg *calicov1alpha1.NetworkConfig, ctrl *configv1alpha1.ControllerConfiguration, network *extensionsv1alpha1.Network, kubernetes string, deployed bool, avail calicoversion.Available) (Choice, error) {
	cat := calicoversion.Default()
	f, err := NetworkFacts(network)
	if err != nil {
		return Choice{}, err
	}
	f.Deployed = f.Deployed || deployed
	f.Kubernetes, f.Available = kubernetes, avail
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
	return Choice{Deployment: d.Deployment(), Source: source(cat, f, d), Decision: d}, nil
}

// source says why a decision renders what it renders, for people: the decision's own message when it
// moves, keeps a release against what was asked or replaces a retired one, else where the release
// came from.
func source(cat *calicoversion.Catalogue, f calicoversion.Facts, d calicoversion.Decision) string {
	switch {
	case d.Moving() && !d.StartedNow:
		return "the Network's move in progress (status.providerStatus.calicoMove): " + d.Message
	case d.StartedNow, d.Status != calicoversion.ConditionTrue, d.Retired != nil:
		// An offline render shows the first step of a move the controller would start.
		return d.Message
	case f.Recorded != "" && f.Pin != nil:
		return "the release the Network runs (status.providerStatus.calicoVersion), which the shoot's pin (providerConfig calicoVersion) asks for"
	case f.Recorded != "":
		return "the release the Network runs (status.providerStatus.calicoVersion)"
	case f.Deployed:
		return "the release of shoots deployed before calico-pilot recorded releases (the Network records none)"
	case f.Pin != nil:
		return "the shoot's pin (providerConfig calicoVersion)"
	}
	if d.Message != fmt.Sprintf("Calico %s runs on every component.", d.Current) {
		// A new shoot that got another release than the newest asked for (its images are missing).
		return d.Message
	}
	if f.OperatorDefault != nil {
		if r, err := cat.Resolve(*f.OperatorDefault); err == nil && r == d.Current {
			return "the operator's default (ControllerConfiguration calico.defaultVersion)"
		}
	}
	return "calico-pilot's default (no pin, no recorded release, no operator default)"
}
