package standalone

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// lastReadFailure is what a rollout timeout says of the last failed read of the workloads (err; nil:
// the last read succeeded): nothing when it failed only because the deadline came (the context's
// deadline, or client-go's rate limiter refusing to wait past it: "client rate limiter Wait returned
// an error: rate: Wait(n=1) would exceed context deadline"), which is the timeout itself and not news;
// any other failure plainly. What the last full read saw is said either way.
func lastReadFailure(err error) string {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "would exceed context deadline") {
		return ""
	}
	return fmt.Sprintf(" (the last read of the workloads failed: %v)", err)
}
