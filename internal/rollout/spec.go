package rollout

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Defaults of a wave (api/config/v1alpha1 Wave).
const (
	DefaultMinSoak         = time.Hour
	DefaultRolloutDeadline = 30 * time.Minute
)

// Spec is the operator's rollout, validated and resolved.
type Spec struct {
	// Name identifies the rollout: a new name starts from the first wave.
	Name string
	// Target is the release the shoots move to (a target naming a line is its newest release when the
	// rollout starts); TargetName is the target as written ("v3.32", "v3.31.7").
	Target     calicoversion.Release
	TargetName string
	// Waves in the order they open.
	Waves []WaveSpec
}

// WaveSpec is one wave, resolved.
type WaveSpec struct {
	Name string
	// Percent (1-100, cumulative) or Selector chooses the members; exactly one is set.
	Percent  int
	Selector labels.Selector
	// MinSoak is how long the wave must hold after its last member succeeded before the next opens.
	MinSoak time.Duration
	// Deadline is how long a member may take to finish its move.
	Deadline time.Duration
	// MaxFailures is the failure budget: more failed members halt the rollout.
	MaxFailures int
}

// ParseSpec validates the ControllerConfiguration's calico.rollout (nil: no rollout) and resolves its
// defaults. Errors name the field path under calico.rollout.
func ParseSpec(r *configv1alpha1.Rollout) (*Spec, field.ErrorList) {
	if r == nil {
		return nil, nil
	}
	root := field.NewPath("calico", "rollout")
	var errs field.ErrorList
	if r.Name == "" {
		errs = append(errs, field.Required(root.Child("name"), "a rollout needs a name: its progress is kept under it"))
	}
	target, err := calicoversion.Default().Resolve(r.TargetVersion)
	if err != nil {
		errs = append(errs, field.Invalid(root.Child("targetVersion"), r.TargetVersion, err.Error()))
	}
	if len(r.Waves) == 0 {
		errs = append(errs, field.Required(root.Child("waves"), "at least one wave"))
	}
	spec := &Spec{Name: r.Name, Target: target, TargetName: strings.TrimSpace(r.TargetVersion)}
	names := map[string]bool{}
	lastPercent := 0
	for i, w := range r.Waves {
		p := root.Child("waves").Index(i)
		ws := WaveSpec{Name: w.Name, MinSoak: DefaultMinSoak, Deadline: DefaultRolloutDeadline}
		if w.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), "waves are named in the rollout's state"))
		} else if names[w.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), w.Name))
		}
		names[w.Name] = true
		errs = append(errs, parseWaveMembers(p, w, &ws, &lastPercent)...)
		errs = append(errs, parseWaveLimits(p, w, &ws)...)
		spec.Waves = append(spec.Waves, ws)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return spec, nil
}

// parseWaveMembers resolves how wave w (at path p) chooses its members into ws: exactly one of a
// cumulative percent, not below the percent of the waves before (lastPercent, raised to ws's), or a
// label selector.
func parseWaveMembers(p *field.Path, w configv1alpha1.Wave, ws *WaveSpec, lastPercent *int) field.ErrorList {
	var errs field.ErrorList
	switch {
	case (w.Percent == nil) == (w.Selector == nil):
		errs = append(errs, field.Invalid(p, w.Name, "exactly one of percent and selector must be set"))
	case w.Percent != nil:
		ws.Percent = int(*w.Percent)
		if ws.Percent < 1 || ws.Percent > 100 {
			errs = append(errs, field.Invalid(p.Child("percent"), ws.Percent, "must be 1-100 (cumulative share of all shoots)"))
		} else if ws.Percent < *lastPercent {
			errs = append(errs, field.Invalid(p.Child("percent"), ws.Percent, fmt.Sprintf("percentages are cumulative and must not decrease (the wave before has %d)", *lastPercent)))
		}
		*lastPercent = max(*lastPercent, ws.Percent)
	default:
		sel, err := metav1.LabelSelectorAsSelector(w.Selector)
		if err != nil {
			errs = append(errs, field.Invalid(p.Child("selector"), w.Selector, err.Error()))
		}
		ws.Selector = sel
	}
	return errs
}

// parseWaveLimits resolves wave w's (at path p) soak time, deadline and failure budget into ws,
// keeping ws's defaults for those not set.
func parseWaveLimits(p *field.Path, w configv1alpha1.Wave, ws *WaveSpec) field.ErrorList {
	var errs field.ErrorList
	for _, d := range []struct {
		name string
		v    *metav1.Duration
		into *time.Duration
	}{{"minSoak", w.MinSoak, &ws.MinSoak}, {"rolloutDeadline", w.RolloutDeadline, &ws.Deadline}} {
		if d.v == nil {
			continue
		}
		if d.v.Duration < 0 || (d.name == "rolloutDeadline" && d.v.Duration == 0) {
			errs = append(errs, field.Invalid(p.Child(d.name), d.v.Duration.String(), "must be positive"))
		}
		*d.into = d.v.Duration
	}
	if w.MaxFailures != nil {
		if *w.MaxFailures < 0 {
			errs = append(errs, field.Invalid(p.Child("maxFailures"), *w.MaxFailures, "must not be negative"))
		}
		ws.MaxFailures = int(*w.MaxFailures)
	}
	return errs
}

// wave returns the wave of that name.
func (s *Spec) wave(name string) (WaveSpec, bool) {
	for _, w := range s.Waves {
		if w.Name == name {
			return w, true
		}
	}
	return WaveSpec{}, false
}
