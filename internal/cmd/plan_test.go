package cmd

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// renderedCurrent renders examples/shoot.yaml as the "deployed" state into a file.
func renderedCurrent(t *testing.T) string {
	t.Helper()
	code, out, errOut := runCLI(t, "render", "--shoot", "../../examples/shoot.yaml", "--kube-apiserver-address", "192.0.2.10", "-o", "json")
	if code != 0 {
		t.Fatalf("render: %d %s", code, errOut)
	}
	// One compact JSON document per line, as in a ManagedResource secret.
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, item := range list.Items {
		line, err := json.Marshal(item)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteString("\n")
	}
	return writeTemp(t, "current.json", b.String())
}

func TestPlanNoChanges(t *testing.T) {
	current := renderedCurrent(t)
	code, out, errOut := runCLI(t, "plan", "--current", current, "--shoot", "../../examples/shoot.yaml", "--kube-apiserver-address", "192.0.2.10")
	if code != 0 || !strings.HasPrefix(out, "no changes (") {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
}

func TestPlanBlockersAndDisruption(t *testing.T) {
	current := renderedCurrent(t)
	data, err := os.ReadFile(current)
	if err != nil {
		t.Fatal(err)
	}
	// Another version's output that moves the pool: an immutable change.
	moved := writeTemp(t, "moved.json", strings.Replace(string(data), `"cidr":"100.96.0.0/11"`, `"cidr":"100.64.0.0/11"`, 1))
	if moved == current || !strings.Contains(string(data), `"cidr":"100.96.0.0/11"`) {
		t.Fatal("fixture: the rendered pool CIDR is not 100.96.0.0/11")
	}
	code, out, errOut := runCLI(t, "plan", "--current", current, "--target", moved)
	want := "IPPool default-ipv4-ippool: IP pool default-ipv4-ippool: spec.cidr cannot change (100.96.0.0/11 -> 100.64.0.0/11); Calico keeps the old value and its IPAM blocks; create a new pool and move to it with `calico-pilot pools migrate`"
	if code != 1 || !strings.Contains(out, "blockers:\n  "+want+"\n") || strings.TrimSpace(errOut) != "error: 1 blocker(s): the change is refused" {
		t.Fatalf("exit %d, err %q, out:\n%s", code, errOut, out)
	}
	code, out, _ = runCLI(t, "plan", "--current", current, "--target", moved, "-o", "json", "--allow-disruption")
	var rep struct {
		Blockers []struct{ Object, Message string } `json:"blockers"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || len(rep.Blockers) != 1 {
		t.Fatalf("json: exit %d, %v, out:\n%s", code, err, out)
	}

	// Dropping a CRD: blocked whatever --allow-disruption says.
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.Contains(line, `"name":"ipamblocks.crd.projectcalico.org"`) {
			kept = append(kept, line)
		}
	}
	dropped := writeTemp(t, "dropped.json", strings.Join(kept, "\n"))
	code, out, _ = runCLI(t, "plan", "--current", current, "--target", dropped, "--allow-disruption")
	if code != 1 || !strings.Contains(out, "CRD ipamblocks.crd.projectcalico.org would be deleted, and with it every stored object(s); calico-pilot never deletes Calico CRDs except with the whole Network") {
		t.Fatalf("dropped CRD: exit %d, out:\n%s", code, out)
	}

	// Encapsulation change of a plain (not released) pool: disruptive, not blocked.
	enc := writeTemp(t, "enc.json", strings.Replace(strings.Replace(string(data), `"ipipMode":"Always"`, `"ipipMode":"Never"`, 1), `"annotations":{"resources.gardener.cloud/mode":"Ignore"},`, "", 1))
	plainCurrent := writeTemp(t, "plain.json", strings.Replace(string(data), `"annotations":{"resources.gardener.cloud/mode":"Ignore"},`, "", 1))
	code, _, errOut = runCLI(t, "plan", "--current", plainCurrent, "--target", enc)
	if code != 1 || strings.TrimSpace(errOut) != "error: the change is disruptive; rerun with --allow-disruption to accept it" {
		t.Fatalf("disruptive: exit %d, err %q", code, errOut)
	}
	if code, _, errOut = runCLI(t, "plan", "--current", plainCurrent, "--target", enc, "--allow-disruption"); code != 0 {
		t.Fatalf("--allow-disruption: exit %d, err %q", code, errOut)
	}
}

func TestPlanBadInput(t *testing.T) {
	for name, args := range map[string][]string{
		"no current":         {"plan", "--shoot", "../../examples/shoot.yaml"},
		"missing file":       {"plan", "--current", "/nonexistent.yaml", "--target", "/nonexistent.yaml"},
		"target and shoot":   {"plan", "--current", "x", "--target", "y", "--shoot", "z"},
		"invalid target cfg": {"plan", "--current", "../../examples/shoot.yaml", "--shoot", "../../examples/shoot.yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			if code, _, errOut := runCLI(t, args...); code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, errOut)
			}
		})
	}
}
