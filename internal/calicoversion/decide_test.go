package calicoversion_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion/calicoversiontest"
)

// TestDecide: which release a shoot runs. Recorded, else v3.31.6 when deployed, else pin / wave /
// operator default / catalogue default for a new shoot (the first whose line supports its Kubernetes);
// a recorded release the catalogue does not carry keeps its line; a pin wins over the rollout; a line
// pin is satisfied by any release of the line; a move in progress completes; a patch move is one step;
// unsupported pins, Kubernetes versions, moves that skip a line and hibernated shoots keep the current
// release.
func TestDecide(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	s := func(v string) *string { return &v }
	for _, tt := range []struct {
		name string
		f    calicoversion.Facts
		// want: calico-node, typha, kube-controllers, CRDs, move phase ("" steady), condition reason, message part
		node, typha, kc, crds, phase, reason, msg string
	}{
		{name: "new shoot: catalogue default (newest of the default line)", f: calicoversion.Facts{Kubernetes: "1.33.1"},
			node: "v3.31.7", typha: "v3.31.7", kc: "v3.31.7", crds: "v3.31.7", reason: "Deployed", msg: "Calico v3.31.7 runs on every component."},
		{name: "new shoot: operator default", f: calicoversion.Facts{OperatorDefault: s("v3.32"), Kubernetes: "1.34.1"},
			node: "v3.32.1", typha: "v3.32.1", kc: "v3.32.1", crds: "v3.32.1", reason: "Deployed"},
		{name: "new shoot on 1.33 with default v3.32 runs v3.31, and says why", f: calicoversion.Facts{OperatorDefault: s("v3.32"), Kubernetes: "1.33.4"},
			node: "v3.31.7", typha: "v3.31.7", kc: "v3.31.7", crds: "v3.31.7", reason: "KubernetesUnsupported",
			msg: "the operator's default (calico.defaultVersion) asks for Calico v3.32.1, which does not support Kubernetes 1.33.4 (supports 1.34-1.36); the shoot gets Calico v3.31.7 (calico-pilot's default)."},
		{name: "new shoot: operator default release", f: calicoversion.Facts{OperatorDefault: s("v3.31.6")},
			node: "v3.31.6", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.31.6", reason: "Deployed"},
		{name: "new shoot: pin over default", f: calicoversion.Facts{OperatorDefault: s("v3.32"), Pin: s("v3.31")},
			node: "v3.31.7", typha: "v3.31.7", kc: "v3.31.7", crds: "v3.31.7", reason: "Deployed"},
		{name: "new shoot: an unsupported pin gets the default", f: calicoversion.Facts{Pin: s("v3.29")},
			node: "v3.31.7", typha: "v3.31.7", kc: "v3.31.7", crds: "v3.31.7", reason: "PinUnsupported", msg: `Calico "v3.29" is not supported`},
		{name: "new shoot in an open wave starts at its target", f: calicoversion.Facts{RolloutTarget: "v3.32", Rollout: "r1", Kubernetes: "1.35.0"},
			node: "v3.32.1", typha: "v3.32.1", kc: "v3.32.1", crds: "v3.32.1", reason: "Deployed"},
		{name: "deployed by the reference: v3.31.6, the default does not move it", f: calicoversion.Facts{Deployed: true, OperatorDefault: s("v3.32")},
			node: "v3.31.6", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.31.6", reason: "Deployed", msg: "Calico v3.31.6 runs"},
		{name: "recorded v3.31.6 stays when the catalogue adds v3.31.7", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RecordedCRDs: "v3.31.6"},
			node: "v3.31.6", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.31.6", reason: "Deployed"},
		{name: "a line pin is satisfied by the release it runs", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", Pin: s("v3.31")},
			node: "v3.31.6", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.31.6", reason: "Deployed"},
		{name: "retired v3.32.0 keeps its line", f: calicoversion.Facts{Deployed: true, Recorded: "v3.32.0", RecordedCRDs: "v3.32.0"},
			node: "v3.32.1", typha: "v3.32.1", kc: "v3.32.1", crds: "v3.32.1", reason: "Deployed", msg: "Calico v3.32.0 is not carried by this calico-pilot (retired); the shoot moves to the newest release of its line, v3.32.1"},
		{name: "newer-than-carried v3.32.9 keeps its line", f: calicoversion.Facts{Deployed: true, Recorded: "v3.32.9", RecordedCRDs: "v3.32.9"},
			node: "v3.32.1", typha: "v3.32.1", kc: "v3.32.1", crds: "v3.32.1", reason: "Deployed", msg: "v3.32.9 is not carried"},
		{name: "retired v3.31.5 keeps its line", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.5", RecordedCRDs: "v3.32.1"},
			node: "v3.31.7", typha: "v3.31.7", kc: "v3.31.7", crds: "v3.32.1", reason: "Deployed", msg: "v3.31.5 is not carried"},
		{name: "pin to a patch release: one step", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RecordedCRDs: "v3.31.6", Pin: s("v3.31.7"), Now: now},
			node: "v3.31.7", typha: "v3.31.7", kc: "v3.31.7", crds: "v3.31.7", phase: "Complete", reason: "Moving", msg: "every component at once (a patch release)"},
		{name: "rollout to a patch release: one step", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RolloutTarget: "v3.31.7", Rollout: "p", Now: now},
			node: "v3.31.7", typha: "v3.31.7", kc: "v3.31.7", crds: "v3.31.7", phase: "Complete", reason: "Moving", msg: `asked by rollout "p"`},
		{name: "rollout moves calico-node first", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RecordedCRDs: "v3.31.6", RolloutTarget: "v3.32", Rollout: "r1", Kubernetes: "1.34.2"},
			node: "v3.32.1", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.32.1", phase: "First", reason: "Moving", msg: `asked by rollout "r1": calico-node first`},
		{name: "pin wins over the rollout", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RolloutTarget: "v3.32", Rollout: "r1", Pin: s("v3.31"), Kubernetes: "1.34.2"},
			node: "v3.31.6", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.31.6", reason: "Deployed"},
		{name: "pin down moves Typha first and keeps the newer CRDs", f: calicoversion.Facts{Deployed: true, Recorded: "v3.32.1", RecordedCRDs: "v3.32.1", Pin: s("v3.31"), Kubernetes: "1.34.2"},
			node: "v3.32.1", typha: "v3.31.7", kc: "v3.31.7", crds: "v3.32.1", phase: "First", reason: "Moving", msg: "calico-typha and calico-kube-controllers first"},
		{name: "steady after a downgrade keeps the newer CRDs", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RecordedCRDs: "v3.32.1"},
			node: "v3.31.6", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.32.1", reason: "Deployed"},
		{name: "unsupported Kubernetes", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RolloutTarget: "v3.32", Rollout: "r1", Kubernetes: "1.33.2"},
			node: "v3.31.6", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.31.6", reason: "KubernetesUnsupported", msg: "does not support Kubernetes 1.33.2 (supports 1.34-1.36)"},
		{name: "running outside its range is said", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", Kubernetes: "1.36.1"},
			node: "v3.31.6", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.31.6", reason: "KubernetesUnsupported", msg: "move it to a line that does (v3.32)"},
		{name: "unsupported pin ratchets", f: calicoversion.Facts{Deployed: true, Recorded: "v3.32.1", RecordedCRDs: "v3.32.1", Pin: s("v3.30")},
			node: "v3.32.1", typha: "v3.32.1", kc: "v3.32.1", crds: "v3.32.1", reason: "PinUnsupported", msg: `Calico "v3.30" is not supported`},
		{name: "hibernated: no move starts", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RolloutTarget: "v3.32", Rollout: "r1", Kubernetes: "1.34.2", Hibernated: true},
			node: "v3.31.6", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.31.6", reason: "Deployed", msg: "starts after wake-up"},
		{name: "a move in progress completes even when no longer asked", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RecordedCRDs: "v3.32.1",
			Moving: &calicoversion.MoveRecord{From: "v3.31.6", To: "v3.32.1", Phase: "Complete", Started: now}},
			node: "v3.32.1", typha: "v3.32.1", kc: "v3.32.1", crds: "v3.32.1", phase: "Complete", reason: "Moving"},
		{name: "a move to a release retired since keeps going to its line's newest", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", RecordedCRDs: "v3.32.0",
			Moving: &calicoversion.MoveRecord{From: "v3.31.6", To: "v3.32.0", Phase: "First", Started: now}},
			node: "v3.32.1", typha: "v3.31.6", kc: "v3.31.6", crds: "v3.32.1", phase: "First", reason: "Moving"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := calicoversion.Default().Decide(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			dep := d.Deployment()
			if got := [4]string{dep.Node.Name(), dep.Typha.Name(), dep.KubeControllers.Name(), dep.CRDs.Name()}; got != [4]string{tt.node, tt.typha, tt.kc, tt.crds} {
				t.Errorf("deployment %v, want %v", got, [4]string{tt.node, tt.typha, tt.kc, tt.crds})
			}
			if string(d.Phase) != tt.phase || d.Moving() != (tt.phase != "") {
				t.Errorf("phase %q (moving %t), want %q", d.Phase, d.Moving(), tt.phase)
			}
			if d.Reason != tt.reason || !strings.Contains(d.Message, tt.msg) {
				t.Errorf("condition %s %q, want %s containing %q", d.Reason, d.Message, tt.reason, tt.msg)
			}
		})
	}
}

// TestDecideRefusesAnUncarriedLine: a recorded release of a line the catalogue does not carry (after
// going back to an older calico-pilot) is an error: rendering would move the shoot across lines.
func TestDecideRefusesAnUncarriedLine(t *testing.T) {
	for _, f := range []calicoversion.Facts{
		{Deployed: true, Recorded: "v3.33.0"},
		{Deployed: true, Recorded: "v3.32.1", RecordedCRDs: "v3.33.0"},
	} {
		if d, err := calicoversion.Default().Decide(f); err == nil || !strings.Contains(err.Error(), "line v3.33, which this calico-pilot does not carry") {
			t.Errorf("%+v: %+v, %v", f, d, err)
		}
	}
}

// TestDecideSyntheticLine: a line added through the catalogue alone is decided like the others: a pin
// that skips a line stays where it is and says which move comes first; an adjacent one moves.
func TestDecideSyntheticLine(t *testing.T) {
	cat := calicoversiontest.WithLines(t, calicoversiontest.V3_33)
	s := func(v string) *string { return &v }
	d, err := cat.Decide(calicoversion.Facts{Deployed: true, Recorded: "v3.31.7", Pin: s("v3.33"), Kubernetes: "1.35.1"})
	if err != nil || d.Moving() || d.Reason != "MoveSkipsLine" || !strings.Contains(d.Message, "move to v3.32 first") {
		t.Errorf("skipping: %+v, %v", d, err)
	}
	d, err = cat.Decide(calicoversion.Facts{Deployed: true, Recorded: "v3.32.1", Pin: s("v3.33"), Kubernetes: "1.35.1"})
	if err != nil || !d.Moving() || d.Phase != calicoversion.PhaseFirst || d.Deployment().Node.Name() != "v3.33.0" || d.Deployment().Typha.Name() != "v3.32.1" {
		t.Errorf("adjacent: %+v, %v", d, err)
	}
}

// onlyReleases is an Available for a landscape whose image vector has the images of the named
// releases only, with the words imagevector uses.
func onlyReleases(names ...string) calicoversion.Available {
	return func(r calicoversion.Release) error {
		for _, n := range names {
			if r.Name() == n {
				return nil
			}
		}
		return fmt.Errorf("Calico %s's images are not in the image vector: add an entry with `version: %s`", r, r)
	}
}

// TestDecideAvailable (issue 35): a landscape's images decide which releases it can run. A new shoot
// gets the newest available release of the default line (or of calico.defaultVersion, or of a line
// pin); a pinned release, a rollout target or the operator's default release that is not available
// is passed over or refused with the entry to add; a running shoot keeps its release even when its
// images are gone, and the condition says so; nothing moves without being asked.
func TestDecideAvailable(t *testing.T) {
	s := func(v string) *string { return &v }
	mirror := onlyReleases("v3.31.6")
	for _, tt := range []struct {
		name               string
		f                  calicoversion.Facts
		node, typha, phase string
		reason, msg        string
	}{
		{name: "new shoot: the newest available release of the default line", f: calicoversion.Facts{Kubernetes: "1.33.0", Available: mirror},
			node: "v3.31.6", typha: "v3.31.6", reason: "Deployed",
			msg: "Calico v3.31.7's images are not in the image vector: add an entry with `version: v3.31.7`; the shoot gets Calico v3.31.6 (calico-pilot's default: the newest release of v3.31 whose images the image vector has)."},
		{name: "new shoot: versioned v3.31.7 entries make it available", f: calicoversion.Facts{Kubernetes: "1.34.1", Available: onlyReleases("v3.31.6", "v3.31.7")},
			node: "v3.31.7", typha: "v3.31.7", reason: "Deployed", msg: "Calico v3.31.7 runs on every component."},
		{name: "new shoot: a line default names its newest available release", f: calicoversion.Facts{Kubernetes: "1.34.1", OperatorDefault: s("v3.31"), Available: mirror},
			node: "v3.31.6", typha: "v3.31.6", reason: "Deployed", msg: "the shoot gets Calico v3.31.6 (the operator's default (calico.defaultVersion): the newest release of v3.31 whose images the image vector has)."},
		{name: "new shoot: an unavailable pinned release is passed over and said", f: calicoversion.Facts{Kubernetes: "1.34.1", Pin: s("v3.32.1"), Available: mirror},
			node: "v3.31.6", typha: "v3.31.6", reason: "ImagesUnavailable",
			msg: "its owner's pin asks for Calico v3.32.1, but Calico v3.32.1's images are not in the image vector: add an entry with `version: v3.32.1`; "},
		{name: "new shoot: no release available", f: calicoversion.Facts{Kubernetes: "1.33.0", Available: onlyReleases()},
			node: "v3.31.7", typha: "v3.31.7", reason: "ImagesUnavailable", msg: "no release whose line supports Kubernetes 1.33.0 has its images in the image vector"},
		{name: "running shoot keeps v3.31.6 when v3.31.7 becomes available", f: calicoversion.Facts{Deployed: true, Kubernetes: "1.33.0", Available: onlyReleases("v3.31.6", "v3.31.7")},
			node: "v3.31.6", typha: "v3.31.6", reason: "Deployed", msg: "Calico v3.31.6 runs on every component."},
		{name: "running shoot keeps its release when its images are gone", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.7", Kubernetes: "1.33.0", Available: mirror},
			node: "v3.31.7", typha: "v3.31.7", reason: "ImagesUnavailable",
			msg: "The shoot runs Calico v3.31.7, but Calico v3.31.7's images are not in the image vector: add an entry with `version: v3.31.7`; it stays on Calico v3.31.7 (no release moves unless its owner or the operator asks)."},
		{name: "a pin to an unavailable release does not move", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", Kubernetes: "1.34.1", Pin: s("v3.32"), Available: mirror},
			node: "v3.31.6", typha: "v3.31.6", reason: "ImagesUnavailable",
			msg: "its owner's pin (providerConfig calicoVersion) asks for Calico v3.32.1, but Calico v3.32.1's images are not in the image vector: add an entry with `version: v3.32.1`; the shoot stays on Calico v3.31.6."},
		{name: "a rollout to an unavailable line does not move", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", Kubernetes: "1.34.1", RolloutTarget: "v3.32", Rollout: "r", Available: mirror},
			node: "v3.31.6", typha: "v3.31.6", reason: "ImagesUnavailable", msg: `rollout "r" asks for Calico v3.32.1, but`},
		{name: "a rollout to a line moves to its newest available release", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", Kubernetes: "1.34.1", RolloutTarget: "v3.31", Rollout: "r", Available: mirror},
			node: "v3.31.6", typha: "v3.31.6", reason: "Deployed"},
		{name: "a pin to an available release moves", f: calicoversion.Facts{Deployed: true, Recorded: "v3.31.6", Kubernetes: "1.34.1", Pin: s("v3.31.7"), Available: onlyReleases("v3.31.6", "v3.31.7")},
			node: "v3.31.7", typha: "v3.31.7", phase: "Complete", reason: "Moving"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := calicoversion.Default().Decide(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			dep := d.Deployment()
			if dep.Node.Name() != tt.node || dep.Typha.Name() != tt.typha || string(d.Phase) != tt.phase {
				t.Errorf("deployment %s (phase %q), want node %s typha %s phase %q", dep, d.Phase, tt.node, tt.typha, tt.phase)
			}
			if d.Reason != tt.reason || !strings.Contains(d.Message, tt.msg) {
				t.Errorf("condition %s %q, want %s containing %q", d.Reason, d.Message, tt.reason, tt.msg)
			}
		})
	}
}

// TestResolveAvailable: a release names itself when available, else the entry to add; a line its
// newest available release, else the newest's entry to add; what the catalogue does not carry is
// Resolve's error.
func TestResolveAvailable(t *testing.T) {
	cat := calicoversion.Default()
	mirror := onlyReleases("v3.31.6")
	for _, tt := range []struct{ in, want, err string }{
		{"v3.31", "v3.31.6", ""},
		{"v3.31.6", "v3.31.6", ""},
		{"v3.31.7", "", "Calico v3.31.7's images are not in the image vector: add an entry with `version: v3.31.7`"},
		{"v3.32", "", "Calico v3.32.1's images are not in the image vector: add an entry with `version: v3.32.1`"},
		{"v3.29", "", `Calico "v3.29" is not supported; accepted: a line (v3.31, v3.32: its newest release) or a release (v3.31.6, v3.31.7, v3.32.1)`},
	} {
		r, err := cat.ResolveAvailable(tt.in, mirror)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s: %v, %v; want error %q", tt.in, r, err, tt.err)
			}
			if strings.HasPrefix(tt.in, "v3.3") && tt.in != "v3.29" && !calicoversion.IsUnavailable(err) {
				t.Errorf("%s: %v is not an UnavailableError", tt.in, err)
			}
			continue
		}
		if err != nil || r.Name() != tt.want {
			t.Errorf("%s: %v, %v; want %s", tt.in, r, err, tt.want)
		}
	}
}
