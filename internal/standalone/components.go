package standalone

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicotls"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/install"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// ComponentsWanted is what the cluster file says of each optional component (components.<name>.enabled):
// nil keeps what runs.
type ComponentsWanted struct {
	APIServer, Goldmane, Whisker, CSIDriver *bool
}

// WantedComponents is what a Cluster's components field says (nil: nothing, keep what runs).
func WantedComponents(c *standalonev1alpha1.Components) ComponentsWanted {
	var w ComponentsWanted
	if c == nil {
		return w
	}
	for _, x := range []struct {
		from *standalonev1alpha1.Component
		to   **bool
	}{{c.APIServer, &w.APIServer}, {c.Goldmane, &w.Goldmane}, {c.Whisker, &w.Whisker}, {c.CSIDriver, &w.CSIDriver}} {
		if x.from != nil {
			*x.to = x.from.Enabled
		}
	}
	return w
}

// componentsPlan is what an apply does with the optional components: which render, their
// certificates (calicotls's plan: the steps that issue, renew or change the CA in an order every peer
// keeps trusting), and the ones the file turns off that run.
type componentsPlan struct {
	on  map[calicoversion.Component]bool
	tls *calicotls.Result
	// input is the material read, for the checksums of what a step does not write.
	input calicotls.Input
	// off are the components that run and the file turns off: apply deletes their objects.
	off []calicoversion.Component
	// source says per component where its setting came from.
	source map[calicoversion.Component]string
}

// optionalRunning are the optional components that run and who runs them: the tigera operator's
// (read by install) or calico-pilot's (recorded in the state).
func optionalRunning(in *install.Install, st State) map[calicoversion.Component]string {
	out := map[calicoversion.Component]string{}
	if in.IsOperator() {
		for _, c := range in.Operator.Components {
			out[calicoversion.Component(c.Name)] = "runs (the tigera operator's)"
		}
	}
	for _, c := range st.Components {
		out[calicoversion.Component(c)] = "runs (calico-pilot's)"
	}
	return out
}

// planComponents decides the optional components: what the file says; where it is silent, what runs
// (a takeover keeps what the operator ran, calico-pilot keeps what it runs; a fresh install or an
// adoption of upstream's manifest runs none). Their certificates are planned with calicotls in the
// layout's namespace, adopting the tigera operator's CA as Typha's is.
func (a *Applier) planComponents(ctx context.Context, req Request, in *install.Install, st State) (*componentsPlan, error) {
	running := optionalRunning(in, st)
	p := &componentsPlan{on: map[calicoversion.Component]bool{}, source: map[calicoversion.Component]string{}}
	for _, c := range []struct {
		comp calicoversion.Component
		want *bool
	}{{calicoversion.APIServer, req.Components.APIServer}, {calicoversion.Goldmane, req.Components.Goldmane},
		{calicoversion.Whisker, req.Components.Whisker}, {calicoversion.CSIDriver, req.Components.CSIDriver}} {
		how, runs := running[c.comp]
		switch {
		case c.want != nil:
			p.on[c.comp] = *c.want
			p.source[c.comp] = fmt.Sprintf("%t (from the file)", *c.want)
			if !*c.want && runs {
				p.off = append(p.off, c.comp)
				p.source[c.comp] = "false (from the file): it " + how + " and is removed"
			}
		case runs:
			p.on[c.comp] = true
			p.source[c.comp] = "true (kept: it " + how + ")"
		}
	}
	if err := refuseOptions(in, p.on); err != nil {
		return nil, err
	}
	comps := values.Components{APIServer: p.on[calicoversion.APIServer], Goldmane: p.on[calicoversion.Goldmane],
		Whisker: p.on[calicoversion.Whisker], CSIDriver: p.on[calicoversion.CSIDriver]}
	errs := comps.Validate(pathComponentsOf())
	if (comps.Goldmane || comps.Whisker) && req.TyphaTLS == nil {
		errs = append(errs, field.Invalid(pathComponentsOf().Child("goldmane", "enabled"), true,
			"Goldmane needs Typha's mutual TLS (Felix sends flows with its Typha client certificate), which calico-pilot runs in the tigera operator's layout only: turn goldmane and whisker off here"))
	}
	if len(errs) > 0 {
		return nil, &FieldErrors{Errs: errs}
	}
	if !comps.APIServer && !comps.Goldmane && !comps.Whisker {
		return p, nil
	}
	table := calicotls.TigeraOperatorTable(calicotls.TableOptions{Namespace: req.Layout.OrDefault().Namespace, ClusterDomain: "cluster.local",
		APIServer: comps.APIServer, Goldmane: comps.Goldmane, Whisker: comps.Whisker})
	input, err := calicotls.Read(ctx, a.Client, table)
	if err != nil {
		return nil, err
	}
	res, err := calicotls.Plan(a.Now(), input)
	if err != nil {
		return nil, fmt.Errorf("the optional components' certificates: %w", err)
	}
	p.tls, p.input = res, input
	return p, nil
}

// refuseOptions refuses, before anything is written, to take over a component whose operator
// resource sets options calico-pilot does not render (an APIServer's apiServerDeployment overrides,
// say): running it without them would drop them unasked. The file can turn the component off instead.
func refuseOptions(in *install.Install, on map[calicoversion.Component]bool) error {
	if !in.IsOperator() {
		return nil
	}
	for _, c := range []struct {
		comp calicoversion.Component
		kind string
	}{{calicoversion.APIServer, "APIServer"}, {calicoversion.Goldmane, "Goldmane"}, {calicoversion.Whisker, "Whisker"}} {
		if set := in.Operator.Settings[c.kind]; on[c.comp] && len(set) > 0 {
			return fmt.Errorf("%s default sets %s, which calico-pilot does not render: running %s without them would drop them unasked. "+
				"Remove them from %s default first, or turn %s off in the cluster file (components.%s.enabled: false, which deletes it); nothing was changed",
				c.kind, strings.Join(set, ", "), c.comp, c.kind, c.comp, fileKey(c.comp))
		}
	}
	return nil
}

func pathComponentsOf() *field.Path { return field.NewPath("components") }

// settings are the values.Components of the plan after the TLS steps up to and including step
// (-1: none written yet; len(steps)-1: all), with calico-node's hostAliases to goldmane's Service.
func (p *componentsPlan) settings(step int, goldmaneIP string) values.Components {
	c := values.Components{APIServer: p.on[calicoversion.APIServer], Goldmane: p.on[calicoversion.Goldmane],
		Whisker: p.on[calicoversion.Whisker], CSIDriver: p.on[calicoversion.CSIDriver], GoldmaneServiceIP: goldmaneIP}
	if p.tls == nil {
		return c
	}
	c.APIServiceCABundle = string(p.input.APIServiceCABundle)
	secrets, configMaps := map[string]map[string][]byte{}, map[string]map[string][]byte{}
	for n, s := range p.input.Secrets {
		secrets[n] = s.Data
	}
	for n, cm := range p.input.ConfigMaps {
		configMaps[n] = stringData(cm.Data)
	}
	for i, s := range p.tls.Steps {
		if i > step {
			break
		}
		for _, sec := range s.Secrets {
			secrets[sec.Name] = sec.Data
		}
		for _, cm := range s.ConfigMaps {
			configMaps[cm.Name] = stringData(cm.Data)
		}
		if s.APIServiceCABundle != nil {
			c.APIServiceCABundle = string(s.APIServiceCABundle)
		}
	}
	if step >= len(p.tls.Steps)-1 && p.tls.APIServiceCABundle != nil {
		c.APIServiceCABundle = string(p.tls.APIServiceCABundle)
	}
	c.Checksums = map[string]string{}
	for n, d := range secrets {
		c.Checksums[n] = digest(d)
	}
	for n, d := range configMaps {
		c.Checksums[n] = digest(d)
	}
	return c
}

func stringData(m map[string]string) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}

// digest is a checksum of a Secret's or ConfigMap's data, independent of the keys' order.
func digest(data map[string][]byte) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%d:", k, len(data[k]))
		h.Write(data[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// pending is true when the certificates need a write (a step to issue, renew or change the CA).
func (p *componentsPlan) pending() bool { return p != nil && p.tls != nil && len(p.tls.Steps) > 0 }

// describe prints the components' settings and their certificates.
func (p *componentsPlan) describe(out io.Writer, ns string) {
	if p == nil || len(p.source) == 0 {
		return
	}
	fmt.Fprintf(out, "optional components:\n")
	for _, c := range calicoversion.Optional() {
		if s, ok := p.source[c]; ok {
			fmt.Fprintf(out, "  components.%s.enabled: %s\n", fileKey(c), s)
		}
	}
	if p.tls != nil {
		p.tls.Report(out, ns)
		for _, s := range p.tls.Steps {
			fmt.Fprintf(out, "  certificate step: %s\n", s.Title)
		}
	}
}

// fileKey is the component's key in the cluster file's components.
func fileKey(c calicoversion.Component) string {
	switch c {
	case calicoversion.APIServer:
		return "apiServer"
	case calicoversion.Goldmane:
		return "goldmane"
	case calicoversion.Whisker:
		return "whisker"
	case calicoversion.CSIDriver:
		return "csiDriver"
	}
	return string(c)
}

// enabledNames are the names of the components the plan renders, for the state.
func (p *componentsPlan) enabledNames() []string {
	var out []string
	for _, c := range calicoversion.Optional() {
		if p != nil && p.on[c] {
			out = append(out, string(c))
		}
	}
	return out
}

// goldmaneServiceIP is the ClusterIP of goldmane's Service in ns ("" when there is none yet: calico-node
// then resolves goldmane's name through the cluster's DNS until the next apply adds the hostAliases entry).
func (a *Applier) goldmaneServiceIP(ctx context.Context, ns string) (string, error) {
	var svc corev1.Service
	if err := a.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "goldmane"}, &svc); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return "", nil
		}
		return "", fmt.Errorf("reading goldmane's Service: %w", err)
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return "", nil
	}
	return svc.Spec.ClusterIP, nil
}

// runTLSSteps writes the certificates' steps but the last in order, each followed by a render of the
// workloads with the material written so far and the wait for the rollouts it causes: every peer keeps
// trusting its server through a change of the CA. The last step is written before the apply's own
// passes, which render with the final material.
func (a *Applier) runTLSSteps(ctx context.Context, req Request, d *Decision) error {
	p := d.components
	if !p.pending() {
		return nil
	}
	steps := p.tls.Steps
	for i, s := range steps {
		if err := calicotls.WriteStep(ctx, a.Client, s, FieldManager); err != nil {
			return err
		}
		var names []string
		for _, sec := range s.Secrets {
			names = append(names, sec.Namespace+"/"+sec.Name)
		}
		for _, cm := range s.ConfigMaps {
			names = append(names, cm.Namespace+"/"+cm.Name)
		}
		fmt.Fprintf(req.Out, "certificates: %s (%s)\n", s.Title, strings.Join(names, ", "))
		if i == len(steps)-1 {
			return nil
		}
		step := req
		step.components = p.settings(i, req.components.GoldmaneServiceIP)
		res, err := a.render(step, d.Passes[0].deployment)
		if err != nil {
			return err
		}
		o, err := split(res)
		if err != nil {
			return err
		}
		// The optional components' workloads (they mount the material) with this step's material, then,
		// once they rolled out, the APIService; the rest waits for the passes.
		step.unchanged = nil
		var workloads []*unstructured.Unstructured
		for _, u := range o.workloads {
			if c, ok := req.Layout.OrDefault().ComponentOfWorkload(u.GetKind(), u.GetName()); ok && c.IsOptional() {
				workloads = append(workloads, u)
			}
		}
		if err := a.applyAll(ctx, workloads, step); err != nil {
			return err
		}
		if err := a.waitRollout(ctx, step, res, pass{deployment: d.Passes[0].deployment, wait: calicoversion.Optional()}, d.Release); err != nil {
			return err
		}
		if err := a.applyAll(ctx, o.apiServices, step); err != nil {
			return err
		}
	}
	return nil
}
