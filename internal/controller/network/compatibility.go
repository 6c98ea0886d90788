package network

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/managedresource"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/referencekeep"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// compatibility reads the provider status and chooses how the fields the reference ignored are
// treated (pipeline.Compatibility, the path render --network and swap-check take too). Only when
// the status says nothing is the ManagedResource read: its existence means someone else deployed
// the shoot's Calico.
func (a *Actuator) compatibility(ctx context.Context, network *extensionsv1alpha1.Network) (calicov1alpha1.CompatibilityMode, pipeline.Deployed, error) {
	var raw []byte
	if ps := network.Status.ProviderStatus; ps != nil {
		raw = ps.Raw
	}
	return pipeline.Compatibility(raw, func() (bool, error) {
		mr := &resourcesv1alpha1.ManagedResource{}
		err := a.Client.Get(ctx, client.ObjectKey{Namespace: network.Namespace, Name: ManagedResourceName}, mr)
		switch {
		case err == nil:
			return true, nil
		case apierrors.IsNotFound(err):
			return false, nil
		}
		return false, fmt.Errorf("reading ManagedResource %s to tell who deployed the shoot's Calico: %w", ManagedResourceName, err)
	}, a.Config)
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

// referenceKept returns what Reference mode renders unchanged from the reference's calico-node pod
// template (internal/referencekeep): from the provider status after the first reconcile, and on the first
// one (no status of calico-pilot's yet) from the manifest the reference deployed, read once from the
// API server (the ManagedResource and its secrets). A manifest that cannot be read or has no
// calico-node costs the swap-in a roll of calico-node, not the reconcile: it is logged.
func (a *Actuator) referenceKept(ctx context.Context, log logr.Logger, namespace string, previous *calicov1alpha1.NetworkStatus, mode calicov1alpha1.CompatibilityMode) *calicov1alpha1.TakenOverTemplate {
	if mode != calicov1alpha1.CompatibilityReference {
		return nil
	}
	if previous != nil {
		return previous.TakenOver
	}
	data, err := managedresource.ReadData(ctx, a.APIReader, namespace, ManagedResourceName)
	if err == nil && data != nil {
		var t *calicov1alpha1.TakenOverTemplate
		if t, err = referencekeep.FromDeployed(data); err == nil {
			if t == nil {
				log.Info("The deployed manifest has no calico-node to take over; calico-node gets calico-pilot's checksum and scripts")
			}
			return t
		}
	}
	if err != nil {
		log.Info("Could not read the reference's deployed calico-node to take it over; calico-node gets calico-pilot's checksum and scripts", "error", err.Error())
	}
	return nil
}
