package lint

import (
	"net/netip"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/selector"
)

// IP protocol numbers with a meaning for rules.
const (
	protoICMP   = 1
	protoTCP    = 6
	protoUDP    = 17
	protoICMPv6 = 58
	protoSCTP   = 132
)

// protocolNames are the names Calico accepts, with their numbers (UDPLite is 136).
var protocolNames = map[string]int{"tcp": protoTCP, "udp": protoUDP, "icmp": protoICMP, "icmpv6": protoICMPv6, "sctp": protoSCTP, "udplite": 136}

// protocol is a parsed protocol field.
type protocol struct {
	set    bool
	number int
	text   string
}

// parseProtocol reads a protocol field: a name (case-insensitive) or a number 1-255.
func (o *object) parseProtocol(p *field.Path, v *intstr.IntOrString) protocol {
	if v == nil {
		return protocol{}
	}
	if v.Type == intstr.Int {
		if v.IntVal < 1 || v.IntVal > 255 {
			o.add(p, SeverityError, "rule-protocol", "Invalid value: %d: a protocol number must be between 1 and 255", v.IntVal)
			return protocol{}
		}
		return protocol{set: true, number: int(v.IntVal), text: strconv.Itoa(int(v.IntVal))}
	}
	if n, err := strconv.Atoi(v.StrVal); err == nil && n >= 1 && n <= 255 {
		return protocol{set: true, number: n, text: v.StrVal}
	}
	n, ok := protocolNames[strings.ToLower(v.StrVal)]
	if !ok {
		o.add(p, SeverityError, "rule-protocol", "Unsupported value: %q: supported values: \"TCP\", \"UDP\", \"ICMP\", \"ICMPv6\", \"SCTP\", \"UDPLite\" or a number 1-255", v.StrVal)
		return protocol{}
	}
	return protocol{set: true, number: n, text: v.StrVal}
}

func (p protocol) supportsPorts() bool {
	return p.number == protoTCP || p.number == protoUDP || p.number == protoSCTP
}

func (p protocol) isICMP() bool { return p.number == protoICMP || p.number == protoICMPv6 }

// checkRule checks one ingress or egress rule.
func (o *object) checkRule(ctx *context, rp *field.Path, dir projectcalicov1.PolicyType, r *projectcalicov1.Rule) {
	switch r.Action {
	case "":
		o.add(rp.Child("action"), SeverityError, "required", "Required value: one of Allow, Deny, Log, Pass")
	case projectcalicov1.ActionAllow, projectcalicov1.ActionDeny, projectcalicov1.ActionLog, projectcalicov1.ActionPass:
	default:
		o.add(rp.Child("action"), SeverityError, "enum", "Unsupported value: %q: supported values: \"Allow\", \"Deny\", \"Log\", \"Pass\"", r.Action)
	}
	ipVersion := 0
	if r.IPVersion != nil {
		if *r.IPVersion != 4 && *r.IPVersion != 6 {
			o.add(rp.Child("ipVersion"), SeverityError, "enum", "Unsupported value: %d: supported values: 4, 6", *r.IPVersion)
		} else {
			ipVersion = *r.IPVersion
		}
	}
	proto := o.parseProtocol(rp.Child("protocol"), r.Protocol)
	notProto := o.parseProtocol(rp.Child("notProtocol"), r.NotProtocol)
	if proto.set && notProto.set && proto.number == notProto.number {
		o.add(rp.Child("notProtocol"), SeverityWarning, "never-matches", "the rule never matches: protocol and notProtocol are both %s", proto.text)
	}
	o.checkICMP(rp.Child("icmp"), r.ICMP, rp, proto, ipVersion)
	o.checkICMP(rp.Child("notICMP"), r.NotICMP, rp, proto, ipVersion)
	o.checkEntity(ctx, rp, "source", dir, &r.Source, r, proto, ipVersion)
	o.checkEntity(ctx, rp, "destination", dir, &r.Destination, r, proto, ipVersion)
}

// checkICMP checks icmp or notICMP: they need protocol ICMP or ICMPv6 of the rule's IP version.
func (o *object) checkICMP(p *field.Path, icmp *projectcalicov1.ICMPFields, rp *field.Path, proto protocol, ipVersion int) {
	if icmp == nil {
		return
	}
	switch {
	case !proto.set:
		o.add(p, SeverityError, "rule-icmp", "Forbidden: ICMP type and code need protocol: ICMP (IPv4) or ICMPv6 on the rule")
	case !proto.isICMP():
		o.add(p, SeverityError, "rule-icmp", "Forbidden: ICMP type and code apply to protocol ICMP or ICMPv6 only, not %s", proto.text)
	case proto.number == protoICMP && ipVersion == 6:
		o.add(p, SeverityError, "rule-icmp", "Forbidden: protocol ICMP is IPv4 but ipVersion is 6 (use ICMPv6)")
	case proto.number == protoICMPv6 && ipVersion == 4:
		o.add(p, SeverityError, "rule-icmp", "Forbidden: protocol ICMPv6 is IPv6 but ipVersion is 4 (use ICMP)")
	}
	if icmp.Code != nil && icmp.Type == nil {
		o.add(p.Child("code"), SeverityError, "rule-icmp", "Forbidden: an ICMP code needs a type")
	}
	if icmp.Type != nil && (*icmp.Type < 0 || *icmp.Type > 254) {
		o.add(p.Child("type"), SeverityError, "rule-icmp", "Invalid value: %d: must be between 0 and 254", *icmp.Type)
	}
	if icmp.Code != nil && (*icmp.Code < 0 || *icmp.Code > 255) {
		o.add(p.Child("code"), SeverityError, "rule-icmp", "Invalid value: %d: must be between 0 and 255", *icmp.Code)
	}
}

// checkEntity checks the source or destination of a rule.
func (o *object) checkEntity(ctx *context, rp *field.Path, side string, dir projectcalicov1.PolicyType, e *projectcalicov1.EntityRule, r *projectcalicov1.Rule, proto protocol, ipVersion int) {
	ep := rp.Child(side)
	for _, ports := range []struct {
		name string
		list []intstr.IntOrString
	}{{"ports", e.Ports}, {"notPorts", e.NotPorts}} {
		if len(ports.list) == 0 {
			continue
		}
		pp := ep.Child(ports.name)
		switch {
		case !proto.set && r.Protocol == nil:
			o.add(pp, SeverityError, "rule-ports", "Forbidden: ports need a protocol: set protocol: TCP, UDP or SCTP on the rule")
		case proto.set && !proto.supportsPorts():
			o.add(pp, SeverityError, "rule-ports", "Forbidden: ports apply to protocols TCP, UDP and SCTP only, not %s", proto.text)
		}
		for i, port := range ports.list {
			o.checkPort(pp.Index(i), port)
		}
	}
	for _, nets := range []struct {
		name string
		list []string
	}{{"nets", e.Nets}, {"notNets", e.NotNets}} {
		for i, n := range nets.list {
			o.checkNet(ep.Child(nets.name).Index(i), n, ipVersion)
		}
	}

	var sel, nsSel selector.Node
	if e.Selector != "" {
		sel = o.checkSelector(ep.Child("selector"), e.Selector, roleEndpoints)
		o.checkNeverMatches(ep.Child("selector"), sel, "the rule never matches")
	}
	if e.NotSelector != "" {
		o.checkSelector(ep.Child("notSelector"), e.NotSelector, roleEndpoints)
	}
	if e.NamespaceSelector != "" {
		nsSel = o.checkSelector(ep.Child("namespaceSelector"), e.NamespaceSelector, roleNamespaces)
		o.checkNeverMatches(ep.Child("namespaceSelector"), nsSel, "the rule never matches")
	}
	if e.ServiceAccounts != nil && e.ServiceAccounts.Selector != "" {
		o.checkSelector(ep.Child("serviceAccounts", "selector"), e.ServiceAccounts.Selector, roleServiceAccounts)
	}
	if e.Services != nil {
		o.checkServices(ep, e)
	}
	if sel != nil {
		o.checkSetTraps(ctx, ep, side, dir, e, sel, nsSel, r, proto)
	}
}

// checkNeverMatches warns when n can match nothing (what: "the rule never matches"), and says so
// when the analysis was cut short (selector.MaxAnalysisWork), rather than passing in silence.
func (o *object) checkNeverMatches(p *field.Path, n selector.Node, what string) {
	if n == nil {
		return
	}
	a := selector.Analyze(n)
	if a.Never {
		o.add(p, SeverityWarning, "never-matches", "%s: %s", what, a.Why)
	}
	if a.Skipped != "" {
		o.add(p, SeverityWarning, "analysis-limit", "whether the selector can match was not fully analysed: %s", a.Skipped)
	}
}

// checkServices checks a services match: it names a Service and excludes every other criterion.
func (o *object) checkServices(ep *field.Path, e *projectcalicov1.EntityRule) {
	sp := ep.Child("services")
	if e.Services.Name == "" {
		o.add(sp.Child("name"), SeverityError, "rule-services", "Required value: the name of the Service")
	}
	if e.Services.Namespace == "" && o.policy.global {
		o.add(sp.Child("namespace"), SeverityError, "rule-services", "Required value: a global policy has no namespace to default to")
	}
	var others []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"selector", e.Selector != ""}, {"notSelector", e.NotSelector != ""}, {"namespaceSelector", e.NamespaceSelector != ""},
		{"nets", len(e.Nets) > 0}, {"notNets", len(e.NotNets) > 0}, {"ports", len(e.Ports) > 0}, {"notPorts", len(e.NotPorts) > 0},
		{"serviceAccounts", e.ServiceAccounts != nil},
	} {
		if f.set {
			others = append(others, f.name)
		}
	}
	if len(others) > 0 {
		o.add(sp, SeverityError, "rule-services", "Forbidden: services cannot be combined with %s in the same rule (the Service's endpoints and ports are the match): use a separate rule", strings.Join(others, ", "))
	}
}

// checkPort checks a port: a number 0-65535, a range "from:to", or a named port.
func (o *object) checkPort(p *field.Path, port intstr.IntOrString) {
	if port.Type == intstr.Int {
		if port.IntVal < 0 || port.IntVal > 65535 {
			o.add(p, SeverityError, "rule-ports", "Invalid value: %d: a port must be between 0 and 65535", port.IntVal)
		}
		return
	}
	s := port.StrVal
	if from, to, isRange := strings.Cut(s, ":"); isRange {
		a, errA := strconv.Atoi(from)
		b, errB := strconv.Atoi(to)
		if errA != nil || errB != nil || a < 0 || b > 65535 || a > b {
			o.add(p, SeverityError, "rule-ports", "Invalid value: %q: a port range is FROM:TO with 0 <= FROM <= TO <= 65535", s)
		}
		return
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || n > 65535 {
			o.add(p, SeverityError, "rule-ports", "Invalid value: %q: a port must be between 0 and 65535", s)
		}
		return
	}
	if errs := validation.IsValidPortName(s); len(errs) > 0 {
		o.add(p, SeverityError, "rule-ports", "Invalid value: %q: not a port number, range or named port: %s", s, strings.Join(errs, "; "))
	}
}

// checkNet checks a CIDR or address and that it fits the rule's ipVersion.
func (o *object) checkNet(p *field.Path, s string, ipVersion int) {
	var addr netip.Addr
	if prefix, err := netip.ParsePrefix(s); err == nil {
		addr = prefix.Addr()
	} else if a, err := netip.ParseAddr(s); err == nil {
		addr = a
	} else {
		o.add(p, SeverityError, "nets", "Invalid value: %q: must be an IP address or CIDR (10.0.0.0/8, 2001:db8::/32)", s)
		return
	}
	switch {
	case ipVersion == 4 && !addr.Is4():
		o.add(p, SeverityError, "nets", "Invalid value: %q: ipVersion is 4 but this is an IPv6 network", s)
	case ipVersion == 6 && addr.Is4():
		o.add(p, SeverityError, "nets", "Invalid value: %q: ipVersion is 6 but this is an IPv4 network", s)
	}
}
