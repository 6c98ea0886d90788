package network

import (
	"errors"
	"time"
)

// ErrorCode is a Gardener error code (gardener-wire-types.md section 1.6).
type ErrorCode string

const (
	// ErrCodeConfigurationProblem is a user configuration error the shoot owner must fix
	// (non-retryable for the gardenlet).
	ErrCodeConfigurationProblem ErrorCode = "ERR_CONFIGURATION_PROBLEM"
	// ErrCodeRetryableConfigurationProblem is a configuration-related problem that may heal by itself.
	ErrCodeRetryableConfigurationProblem ErrorCode = "ERR_RETRYABLE_CONFIGURATION_PROBLEM"
)

// codedError carries Gardener error codes and an optional requeue delay through the error chain.
type codedError struct {
	err          error
	codes        []ErrorCode
	requeueAfter time.Duration
}

func (e *codedError) Error() string               { return e.err.Error() }
func (e *codedError) Unwrap() error               { return e.err }
func (e *codedError) Codes() []ErrorCode          { return e.codes }
func (e *codedError) RequeueAfter() time.Duration { return e.requeueAfter }

// configurationError marks err as a problem with the user's configuration: terminal until the
// configuration changes.
func configurationError(err error) error {
	return &codedError{err: err, codes: []ErrorCode{ErrCodeConfigurationProblem}}
}

// retriableError marks err as one that heals without a configuration change; the Network is retried
// after requeueAfter (0 means controller-runtime's backoff).
func retriableError(err error, requeueAfter time.Duration, codes ...ErrorCode) error {
	return &codedError{err: err, codes: codes, requeueAfter: requeueAfter}
}

// errorCodes collects the codes of every coded error in err's chain, without duplicates.
func errorCodes(err error) []string {
	var out []string
	seen := map[ErrorCode]bool{}
	for err != nil {
		var ce *codedError
		if !errors.As(err, &ce) {
			break
		}
		for _, c := range ce.codes {
			if !seen[c] {
				seen[c] = true
				out = append(out, string(c))
			}
		}
		err = ce.err
	}
	return out
}

// requeueAfter returns the requeue delay requested anywhere in err's chain.
func requeueAfter(err error) time.Duration {
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.requeueAfter
	}
	return 0
}
