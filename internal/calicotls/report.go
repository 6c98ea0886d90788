package calicotls

import (
	"fmt"
	"io"
	"strings"
)

// Report prints the CA, each key pair's expiry and when it is renewed, the steps and the warnings,
// for a dry run:
//
//	calico-apiserver-certs: valid until 2029-03-08, renewed from 2029-02-06
func (r *Result) Report(out io.Writer, namespace string) {
	ca := r.CA
	fmt.Fprintf(out, "CA %q (%s; Secret %s/%s): valid until %s, replaced from %s", ca.CommonName, caSourceText(ca), namespace, CASecret, day(ca.NotAfter), day(ca.RenewAt))
	if len(ca.Previous) > 0 {
		fmt.Fprintf(out, "; still trusted during the steps: %s", strings.Join(ca.Previous, ", "))
	}
	fmt.Fprintln(out)
	for _, p := range r.Pairs {
		switch p.Action {
		case Keep:
			fmt.Fprintf(out, "%s: valid until %s, renewed from %s\n", p.Secret, day(p.NotAfter), day(p.RenewAt))
		case Issue:
			was := ""
			if !p.PreviousNotAfter.IsZero() {
				was = fmt.Sprintf(", was valid until %s", day(p.PreviousNotAfter))
			}
			fmt.Fprintf(out, "%s: issued now (%s%s): valid until %s, renewed from %s\n", p.Secret, p.Reason, was, day(p.NotAfter), day(p.RenewAt))
		case UserOwned:
			fmt.Fprintf(out, "%s: the user's certificate (issuer %q): valid until %s, never renewed by calico-pilot", p.Secret, p.Issuer, day(p.NotAfter))
			if p.Reason != "" {
				fmt.Fprintf(out, "; %s", p.Reason)
			}
			fmt.Fprintln(out)
		}
	}
	for i, s := range r.Steps {
		fmt.Fprintf(out, "step %d: %s", i+1, s.Title)
		if len(s.Await) > 0 {
			fmt.Fprintf(out, "; after the rollouts of %s", workloadNames(s.Await))
		}
		if len(s.Rollouts) > 0 {
			fmt.Fprintf(out, "; rolls %s", workloadNames(s.Rollouts))
		}
		fmt.Fprintln(out)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(out, "warning: %s\n", w)
	}
}

func caSourceText(ca CAState) string {
	switch ca.Source {
	case CAAdopted:
		return fmt.Sprintf("the tigera operator's, adopted from Secret %s/%s", OperatorNamespace, OperatorCASecret)
	case CACreated:
		return "calico-pilot's own, created now"
	case CARotated:
		return "calico-pilot's own, created now to replace the CA: " + ca.Reason
	}
	return "kept"
}

func workloadNames(ws []Workload) string {
	var n []string
	for _, w := range ws {
		n = append(n, w.String())
	}
	return strings.Join(n, ", ")
}
