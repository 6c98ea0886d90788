package apiserverendpoints

import "time"

// RequeueInterval bounds ttl by minimum and maximum: the time after which resolved addresses should
// be resolved again. A bound <= 0 is not applied. When minimum exceeds maximum, maximum wins:
// re-resolving too often is safer than publishing stale addresses for too long.
func RequeueInterval(ttl, minimum, maximum time.Duration) time.Duration {
	d := ttl
	if minimum > 0 && d < minimum {
		d = minimum
	}
	if maximum > 0 && d > maximum {
		d = maximum
	}
	return max(d, 0)
}

// RequeueAfter is when the addresses of r should be looked up again: zero (no TTL-driven requeue)
// when no name was resolved, else RequeueInterval(r.TTL, minimum, maximum).
func (r Result) RequeueAfter(minimum, maximum time.Duration) time.Duration {
	if !r.Resolved {
		return 0
	}
	return RequeueInterval(r.TTL, minimum, maximum)
}
