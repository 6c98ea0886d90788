package plan

import (
	"encoding/json"
	"fmt"
	"strings"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// Choice is the Calico deployment an offline command renders and why.
type Choice struct {
	// Deployment is what each component runs.
	Deployment calicoversion.Deployment
	// Source says where the line came from, for people.
	Source string
}

// Note is the line render prints on stderr.
func (c Choice) Note() string {
	d := c.Deployment
	if d.IsSteady() {
		return fmt.Sprintf("note: rendered Calico %s (%s): %s", d.Node.Minor, d.Node.Release, c.Source)
	}
	return fmt.Sprintf("note: rendered Calico %s: %s", d, c.Source)
}

// LineOfRelease is the supported line of a recorded release ("v3.31.6"); a release of a supported
// line that this calico-pilot does not deploy (an older patch) counts as its line.
func LineOfRelease(release string) (calicoversion.Version, error) {
	if v, err := calicoversion.Parse(release); err == nil {
		return v, nil
	}
	parts := strings.SplitN(strings.TrimPrefix(release, "v"), ".", 3)
	if len(parts) == 3 {
		if v, err := calicoversion.Parse(parts[0] + "." + parts[1]); err == nil {
			return v, nil
		}
	}
	return calicoversion.Version{}, fmt.Errorf("release %q is of no Calico line this calico-pilot deploys (%s)", release, strings.Join(calicoversion.SupportedNames(), ", "))
}

// RecordedCalico is what a Network's providerStatus says its shoot runs (calicoVersion, calicoMove,
// calicoCRDVersion); zero when nothing is recorded. A Network deployed before lines were recorded
// runs the default line (calicoversion.Default), which the caller decides.
func RecordedCalico(network *extensionsv1alpha1.Network) (calicoversion.Deployment, error) {
	if network == nil || network.Status.ProviderStatus == nil || len(network.Status.ProviderStatus.Raw) == 0 {
		return calicoversion.Deployment{}, nil
	}
	var st calicov1alpha1.NetworkStatus
	if err := json.Unmarshal(network.Status.ProviderStatus.Raw, &st); err != nil {
		return calicoversion.Deployment{}, fmt.Errorf("the Network's status.providerStatus does not decode: %w", err)
	}
	if st.CalicoVersion == "" {
		return calicoversion.Deployment{}, nil
	}
	line, err := LineOfRelease(st.CalicoVersion)
	if err != nil {
		return calicoversion.Deployment{}, fmt.Errorf("the Network's status.providerStatus.calicoVersion: %w", err)
	}
	var crds calicoversion.Version
	if st.CalicoCRDVersion != "" {
		if crds, err = LineOfRelease(st.CalicoCRDVersion); err != nil {
			return calicoversion.Deployment{}, fmt.Errorf("the Network's status.providerStatus.calicoCRDVersion: %w", err)
		}
	}
	if m := st.CalicoMove; m != nil {
		from, err1 := LineOfRelease(m.From)
		to, err2 := LineOfRelease(m.To)
		if err1 == nil && err2 == nil {
			return calicoversion.Move(from, to, crds, calicoversion.Phase(m.Phase)), nil
		}
	}
	return calicoversion.Move(line, line, crds, calicoversion.PhaseComplete), nil
}

// ChooseCalico decides the Calico deployment of an offline render, as the controller does for a
// shoot that is not moving: an explicit line (render --calico-version, plan --target-version) first;
// else the shoot's pin (providerConfig calicoVersion; a pin this calico-pilot no longer deploys is
// not used, as the controller ratchets it); else, for a Network, the line its providerStatus records
// (a shoot keeps its line until a pin or the operator's rollout moves it); else the operator's
// calico.defaultVersion; else calicoversion.Default. The CRDs never go below what the Network
// records (calicoCRDVersion): a move renders the newer schema the shoot keeps.
func ChooseCalico(explicit string, cfg *calicov1alpha1.NetworkConfig, ctrl *configv1alpha1.ControllerConfiguration, network *extensionsv1alpha1.Network) (Choice, error) {
	recorded, err := RecordedCalico(network)
	if err != nil {
		return Choice{}, err
	}
	steady := func(v calicoversion.Version, source string) Choice {
		if recorded.IsZero() {
			return Choice{Deployment: calicoversion.Steady(v), Source: source}
		}
		return Choice{Deployment: calicoversion.Move(v, v, recorded.CRDs, calicoversion.PhaseComplete), Source: source}
	}
	if explicit != "" {
		v, err := calicoversion.Parse(explicit)
		if err != nil {
			return Choice{}, err
		}
		return steady(v, "asked for"), nil
	}
	if pin, _ := rules.CalicoVersion(cfg, nil); !pin.IsZero() {
		return steady(pin, "the shoot's pin (providerConfig calicoVersion)"), nil
	}
	if !recorded.IsZero() {
		source := "the line the Network runs (status.providerStatus.calicoVersion)"
		if !recorded.IsSteady() {
			source = "the Network's move in progress (status.providerStatus.calicoMove)"
		}
		return Choice{Deployment: recorded, Source: source}, nil
	}
	if ctrl != nil && ctrl.Calico != nil && ctrl.Calico.DefaultVersion != nil {
		v, err := calicoversion.Parse(*ctrl.Calico.DefaultVersion)
		if err != nil {
			return Choice{}, fmt.Errorf("ControllerConfiguration calico.defaultVersion: %w", err)
		}
		return steady(v, "the operator's default (ControllerConfiguration calico.defaultVersion)"), nil
	}
	return steady(calicoversion.Default(), "calico-pilot's default (no pin, no recorded line, no operator default)"), nil
}
