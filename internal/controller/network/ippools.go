package network

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/pools"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// poolSyncRetry is how soon a pool sync that could not reach the shoot is tried again. Until then
// calico-node creates a missing default pool from its environment, which the next sync takes over.
const poolSyncRetry = time.Minute

// syncPools creates the pools the config needs and calico-pilot never created, and patches the
// encapsulation of recorded pools when the config changed it; nothing else. It returns the records
// for the provider status (the previous ones when the shoot cannot be reached) and a requeue delay.
// It gathers (list pools), decides (internal/pools, pure) and then writes.
//
// The shoot is contacted only when a sync can be due (poolSyncDue): asked is true for a reconcile
// the gardenlet asked for (operation annotation, which it sets on every shoot reconcile), a
// changed Network spec or a restore. Requeues and resyncs with nothing new keep the records and
// the condition as they are, and send nothing to the seed or the shoot for pools.
func (a *Actuator) syncPools(ctx context.Context, log logr.Logger, namespace string, shoot *gardencorev1beta1.Shoot, desired []calicov1.IPPool, previous *calicov1alpha1.NetworkStatus, conds *conditionSet, asked bool) ([]calicov1alpha1.IPPoolRecord, time.Duration) {
	var prev []calicov1alpha1.IPPoolRecord
	if previous != nil {
		prev = previous.IPPools
	}
	if len(desired) == 0 && len(prev) == 0 {
		conds.remove(ConditionIPPools)
		return nil, 0
	}
	if values.HibernationWanted(shoot) {
		conds.set(ConditionIPPools, gardencorev1beta1.ConditionUnknown, "ShootHibernated", "The shoot is hibernated: its IP pools are checked after wake-up.")
		return prev, 0
	}
	if !poolSyncDue(asked, desired, prev, conds.get(ConditionIPPools)) {
		return prev, 0
	}
	records, err := a.applyPools(ctx, log, namespace, desired, prev, conds)
	if err != nil {
		conds.set(ConditionIPPools, gardencorev1beta1.ConditionUnknown, "ShootUnreachable",
			fmt.Sprintf("The shoot's IP pools could not be checked; nothing was changed there, retrying: %v", err))
		log.Info("IP pool sync failed, retrying", "error", err.Error())
		return prev, poolSyncRetry
	}
	return records, 0
}

// poolSyncDue: when asked, when the config's pools are not what the records hold (a new pool, a
// changed encapsulation or CIDR: e.g. after a Cluster change or a calico-pilot upgrade, with no
// change of the Network), or when the last sync did not complete (no condition yet, the shoot was
// unreachable, or hibernated and now awake). Otherwise the last sync's answer stands: the owner's
// later edits of a pool are reported at the next asked-for reconcile (at the latest the
// gardenlet's next shoot reconcile), and are never acted upon anyway.
func poolSyncDue(asked bool, desired []calicov1.IPPool, prev []calicov1alpha1.IPPoolRecord, last *gardencorev1beta1.Condition) bool {
	if asked || last == nil || last.Status == gardencorev1beta1.ConditionUnknown {
		return true
	}
	return pools.IntentChanged(desired, pools.FromStatus(prev))
}

func (a *Actuator) applyPools(ctx context.Context, log logr.Logger, namespace string, desired []calicov1.IPPool, prev []calicov1alpha1.IPPoolRecord, conds *conditionSet) ([]calicov1alpha1.IPPoolRecord, error) {
	shootClient, err := a.ShootClient(ctx, namespace)
	if err != nil {
		return nil, err
	}
	var live calicov1.IPPoolList
	if err := shootClient.List(ctx, &live); err != nil {
		return nil, fmt.Errorf("listing IP pools in the shoot: %w", err)
	}
	res := pools.Decide(desired, live.Items, pools.FromStatus(prev), a.now())
	for _, act := range res.Actions {
		switch act.Kind {
		case pools.ActionCreate:
			obj := act.Object.DeepCopy()
			obj.ResourceVersion = ""
			if err := shootClient.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, fmt.Errorf("creating IP pool %s in the shoot: %w", act.Name, err)
			}
			log.Info("Created IP pool", "ipPool", act.Name, "cidr", obj.Spec.CIDR)
		case pools.ActionPatchEncapsulation:
			obj := &calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: act.Name}}
			if err := shootClient.Patch(ctx, obj, client.RawPatch(types.MergePatchType, act.MergePatch())); err != nil {
				if apierrors.IsNotFound(err) {
					continue // deleted since the list: the next sync records that
				}
				return nil, fmt.Errorf("patching the encapsulation of IP pool %s in the shoot: %w", act.Name, err)
			}
			log.Info("Patched IP pool encapsulation", "ipPool", act.Name, "ipipMode", act.IPIPMode, "vxlanMode", act.VXLANMode)
		}
	}
	setPoolCondition(conds, res.Findings)
	return pools.ToStatus(res.Records), nil
}

// setPoolCondition: False when the config asks for something the owner overrode, True otherwise
// (the owner's other edits are named in the message).
func setPoolCondition(conds *conditionSet, findings []pools.Finding) {
	var conflicts, notes []string
	for _, f := range findings {
		if f.Conflict {
			conflicts = append(conflicts, f.Message)
		} else {
			notes = append(notes, f.Message)
		}
	}
	sort.Strings(conflicts)
	sort.Strings(notes)
	if len(conflicts) > 0 {
		conds.set(ConditionIPPools, gardencorev1beta1.ConditionFalse, "OwnerOverride",
			"The configuration asks for IP pool settings the shoot's owner changed; calico-pilot keeps the owner's changes: "+strings.Join(append(conflicts, notes...), "; ")+".")
		return
	}
	msg := "The shoot's IP pools are as the configuration asks."
	if len(notes) > 0 {
		msg = "The shoot's IP pools are as the configuration asks, with the owner's changes kept: " + strings.Join(notes, "; ") + "."
	}
	conds.set(ConditionIPPools, gardencorev1beta1.ConditionTrue, "InSync", msg)
}
