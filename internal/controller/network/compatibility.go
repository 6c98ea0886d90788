package network

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// compatibility chooses how the fields the reference ignored are treated (pipeline.ChooseCompatibility,
// with pipeline.DeployedFrom's reading of the provider status). Only when the status says nothing is
// the ManagedResource read: its existence means someone else deployed the shoot's Calico. previous is
// the decoded provider status (nil when absent or unreadable).
func (a *Actuator) compatibility(ctx context.Context, network *extensionsv1alpha1.Network, previous *calicov1alpha1.NetworkStatus) (calicov1alpha1.CompatibilityMode, error) {
	var raw []byte
	if ps := network.Status.ProviderStatus; ps != nil && previous == nil {
		raw = ps.Raw
	}
	d, err := pipeline.DeployedFrom(raw, false)
	if err != nil {
		// Unreadable: not ours, so someone else wrote it.
		d = pipeline.Deployed{ByOther: true}
	}
	d.Previous = previous
	if previous == nil && !d.ByOther {
		mr := &resourcesv1alpha1.ManagedResource{}
		err := a.Client.Get(ctx, client.ObjectKey{Namespace: network.Namespace, Name: ManagedResourceName}, mr)
		switch {
		case err == nil:
			d.ByOther = true
		case !apierrors.IsNotFound(err):
			return "", fmt.Errorf("reading ManagedResource %s to tell who deployed the shoot's Calico: %w", ManagedResourceName, err)
		}
	}
	return pipeline.ChooseCompatibility(d, a.Config), nil
}

// setFindingsCondition reports the providerConfig fields deployed other than written.
func setFindingsCondition(conds *conditionSet, findings []rules.Finding) {
	if len(findings) == 0 {
		conds.set(ConditionProviderConfigHonoured, gardencorev1beta1.ConditionTrue, "AsWritten", "Every providerConfig field is deployed as written.")
		return
	}
	contradictory, ignored := 0, 0
	lines := make([]string, 0, len(findings))
	for _, f := range findings {
		if f.Kind == rules.FindingIgnored {
			ignored++
		} else {
			contradictory++
		}
		lines = append(lines, fmt.Sprintf("%s (%s)", f.String(), strings.ToLower(string(f.Kind))))
	}
	reason := "ContradictoryFields"
	switch {
	case contradictory > 0 && ignored > 0:
		reason = "ContradictoryAndIgnoredFields"
	case ignored > 0:
		reason = "IgnoredFields"
	}
	msg := "Deployed, but not every providerConfig field as written (a new Shoot with this config would be refused; fix the fields at your next change): " + strings.Join(lines, " | ")
	if contradictory == 0 {
		msg = "Deployed as the reference extension did before calico-pilot took over: these fields are ignored: " + strings.Join(lines, " | ")
	}
	conds.set(ConditionProviderConfigHonoured, gardencorev1beta1.ConditionFalse, reason, msg)
}
