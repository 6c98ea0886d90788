package calicoversion

import (
	"errors"
	"fmt"
)

// Available says whether the images a landscape has can deploy a release (for one shoot: its
// Kubernetes version): nil when they can, else why not, naming the image entry to add. A nil
// Available is a landscape that has every release the catalogue carries (no image vector override).
// internal/imagevector computes it from the image vector (docs/calico-lines.md, "Which releases a
// landscape can run").
type Available func(Release) error

// Check is a's answer for r; a nil Available and a zero release are always available.
func (a Available) Check(r Release) error {
	if a == nil || r.IsZero() {
		return nil
	}
	if err := a(r); err != nil {
		return &UnavailableError{Release: r, Err: err}
	}
	return nil
}

// UnavailableError is the error of a carried release whose images the landscape does not have.
type UnavailableError struct {
	Release Release
	Err     error
}

// Error is the reason, which names the release and the image entry to add.
func (e *UnavailableError) Error() string { return e.Err.Error() }

// Unwrap is the reason.
func (e *UnavailableError) Unwrap() error { return e.Err }

// IsUnavailable is true for an error that says a release's images are missing (UnavailableError).
func IsUnavailable(err error) bool {
	var u *UnavailableError
	return errors.As(err, &u)
}

// NewestAvailable is the newest release of line l that a accepts; when none does, the newest
// release and the error of it (the entry to add for the newest release).
func (a Available) NewestAvailable(l Line) (Release, error) {
	rs := l.Releases()
	if len(rs) == 0 {
		return Release{}, fmt.Errorf("line %s has no release", l)
	}
	for i := len(rs) - 1; i >= 0; i-- {
		if a.Check(rs[i]) == nil {
			return rs[i], nil
		}
	}
	return rs[len(rs)-1], a.Check(rs[len(rs)-1])
}

// ResolveAvailable is Resolve among the releases a accepts: a line names its newest available
// release; a release that is not available is an UnavailableError naming the entry to add. An error
// of Resolve (not a release this calico-pilot carries) is returned as it is.
func (c *Catalogue) ResolveAvailable(s string, a Available) (Release, error) {
	r, err := c.Resolve(s)
	if err != nil {
		return Release{}, err
	}
	if n, _ := ParseName(s); !n.HasPatch {
		return a.NewestAvailable(r.Line())
	}
	return r, a.Check(r)
}
