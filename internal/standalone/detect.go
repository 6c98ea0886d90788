package standalone

import (
	"fmt"
	"strings"
)

// OperatorError refuses a cluster whose Calico the tigera operator runs.
type OperatorError struct {
	// Found lists what gave the operator away.
	Found []string
}

func (e *OperatorError) Error() string {
	return fmt.Sprintf("this cluster's Calico is run by the tigera operator (%s): the operator reconciles its Installation and "+
		"would revert every change calico-pilot makes (it re-creates the default IP pool its Installation lists, for one). "+
		"Do not delete the Installation (the operator then deletes calico-node). Review the takeover with --adopt --dry-run, then take it over "+
		"in place with --adopt: calico-pilot stops the operator first and keeps Calico running (docs/standalone.md \"Leave the tigera operator\"); "+
		"or keep managing Calico through the Installation; nothing was changed",
		strings.Join(e.Found, "; "))
}
