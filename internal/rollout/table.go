package rollout

import (
	"cmp"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// ReasonNotKept stands for the reason of a failed member beyond a wave's MaxReasonsPerWave.
const ReasonNotKept = "reason not kept (more members of this wave failed than the state keeps reasons for; the shoot's Network status says why)"

// WaveStatus is the state of one wave as `calico-pilot rollout status` shows it.
func WaveStatus(s State, w WaveState) string {
	switch {
	case s.Halted != nil && s.Halted.Wave == w.Name:
		return "Halted"
	case w.Done != nil:
		return "Done"
	case w.Settled != nil:
		return "Soaking"
	case w.Opened != nil:
		return "Open"
	}
	return "Waiting"
}

// WriteTable prints the State as `calico-pilot rollout status` does: a headline, one row per wave
// (state, shoots moved, succeeded, failed, pending, skipped) and the reasons of every failed and
// skipped shoot.
func WriteTable(out io.Writer, s State, found bool) error {
	if !found || s.Rollout == "" {
		_, err := fmt.Fprintf(out, "No rollout state (ConfigMap %s): no rollout configured, or the controller has not evaluated it yet.\n", ConfigMapName)
		return err
	}
	if _, err := fmt.Fprintf(out, "Rollout %s to Calico %s: %s\n\n", s.Rollout, tableTarget(s), headline(s)); err != nil {
		return err
	}
	if err := writeTargetNotes(out, s.release()); err != nil {
		return err
	}
	reasons, err := writeWaves(out, s)
	if err != nil {
		return err
	}
	return writeReasons(out, reasons)
}

// headline is where the rollout stands: in progress, halted (where and why) or completed.
func headline(s State) string {
	switch {
	case s.Halted != nil:
		return fmt.Sprintf("HALTED in wave %s at %s: %s", s.Halted.Wave, s.Halted.At.UTC().Format(time.RFC3339), s.Halted.Reason)
	case s.Completed != nil:
		return "completed at " + s.Completed.UTC().Format(time.RFC3339)
	}
	return "in progress"
}

// tableTarget is the rollout's target, with the release it stands for when that differs.
func tableTarget(s State) string {
	target := s.Target
	if r := s.release(); r != s.Target {
		target += " (" + r + ")"
	}
	return target
}

// writeTargetNotes prints the target's known issues, where they matter: before and while its
// shoots move; and a note when the release is retired.
func writeTargetNotes(out io.Writer, release string) error {
	r, err := calicoversion.Default().Recorded(release)
	if err != nil || r.Release.IsZero() {
		return nil
	}
	if r.Retired {
		if _, err := fmt.Fprintf(out, "note: %s\n\n", r.Message()); err != nil {
			return err
		}
	}
	issues := r.Release.KnownIssues()
	if len(issues) == 0 {
		return nil
	}
	for _, k := range issues {
		if _, err := fmt.Fprintf(out, "known issue of Calico %s: %s\n  what to do: %s\n", r.Release, k, k.Action); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(out)
	return err
}

// writeWaves prints one row per wave and returns the reason lines of its failed, gone and skipped
// shoots.
func writeWaves(out io.Writer, s State) ([]string, error) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WAVE\tSTATE\tMOVED\tSUCCEEDED\tFAILED\tPENDING\tSKIPPED\tOPENED")
	var reasons []string
	for _, w := range s.Waves {
		counts := map[MemberState]int{}
		for _, m := range w.Members {
			counts[m.State]++
		}
		reasons = append(reasons, waveReasons(w)...)
		opened := "-"
		if w.Opened != nil {
			opened = w.Opened.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", w.Name, WaveStatus(s, w), len(w.Members),
			counts[MemberSucceeded], counts[MemberFailed], counts[MemberPending], len(w.Skipped), opened)
	}
	return reasons, tw.Flush()
}

// waveReasons are the reason lines of a wave's failed and gone members, then of its skipped shoots.
func waveReasons(w WaveState) []string {
	var reasons []string
	for _, m := range w.Members {
		if m.State == MemberFailed || m.State == MemberGone {
			reasons = append(reasons, fmt.Sprintf("  %s\t%s\t%s: %s", w.Name, m.Shoot, m.State, cmp.Or(m.Reason, ReasonNotKept)))
		}
	}
	for _, sk := range w.Skipped {
		reasons = append(reasons, fmt.Sprintf("  %s\t%s\tSkipped: %s", w.Name, sk.Shoot, sk.Reason))
	}
	return reasons
}

// writeReasons prints the reason lines, when there are any.
func writeReasons(out io.Writer, reasons []string) error {
	if len(reasons) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(out, "\nShoots that failed, are gone or were skipped:"); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, r := range reasons {
		fmt.Fprintln(tw, r)
	}
	return tw.Flush()
}
