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
		"would revert every change calico-pilot makes (it re-creates the default IP pool its Installation lists, for one); "+
		"apply refuses to share the cluster with it. To move to calico-pilot, first remove the operator while keeping Calico's "+
		"data (docs/standalone.md \"Clusters run by the tigera operator\"), or keep managing Calico through the Installation resource",
		strings.Join(e.Found, "; "))
}

