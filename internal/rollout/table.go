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
	head := "in progress"
	switch {
	case s.Halted != nil:
		head = fmt.Sprintf("HALTED in wave %s at %s: %s", s.Halted.Wave, s.Halted.At.UTC().Format(time.RFC3339), s.Halted.Reason)
	case s.Completed != nil:
		head = "completed at " + s.Completed.UTC().Format(time.RFC3339)
	}
	target := s.Target
	if r := s.release(); r != s.Target {
		target += " (" + r + ")"
	}
	if _, err := fmt.Fprintf(out, "Rollout %s to Calico %s: %s\n\n", s.Rollout, target, head); err != nil {
		return err
	}
	// The target's known issues, where they matter: before and while its shoots move.
	if r, err := calicoversion.Default().Recorded(s.release()); err == nil && !r.Release.IsZero() {
		if r.Retired {
			if _, err := fmt.Fprintf(out, "note: %s\n\n", r.Message()); err != nil {
				return err
			}
		}
		if issues := r.Release.KnownIssues(); len(issues) > 0 {
			for _, k := range issues {
				if _, err := fmt.Fprintf(out, "known issue of Calico %s: %s\n  what to do: %s\n", r.Release, k, k.Action); err != nil {
					return err
				}
			}
			if _, err := fmt.Fprintln(out); err != nil {
				return err
			}
		}
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WAVE\tSTATE\tMOVED\tSUCCEEDED\tFAILED\tPENDING\tSKIPPED\tOPENED")
	var reasons []string
	for _, w := range s.Waves {
		counts := map[MemberState]int{}
		for _, m := range w.Members {
			counts[m.State]++
			if m.State == MemberFailed || m.State == MemberGone {
				reasons = append(reasons, fmt.Sprintf("  %s\t%s\t%s: %s", w.Name, m.Shoot, m.State, cmp.Or(m.Reason, ReasonNotKept)))
			}
		}
		for _, sk := range w.Skipped {
			reasons = append(reasons, fmt.Sprintf("  %s\t%s\tSkipped: %s", w.Name, sk.Shoot, sk.Reason))
		}
		opened := "-"
		if w.Opened != nil {
			opened = w.Opened.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", w.Name, WaveStatus(s, w), len(w.Members),
			counts[MemberSucceeded], counts[MemberFailed], counts[MemberPending], len(w.Skipped), opened)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(reasons) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(out, "\nShoots that failed, are gone or were skipped:"); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, r := range reasons {
		fmt.Fprintln(tw, r)
	}
	return tw.Flush()
}
