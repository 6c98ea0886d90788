package network

import (
	"errors"
	"time"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// ErrorCode is a Gardener error code (docs/gardener-api-types.md section 1.6).
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

// ConfigurationError marks err as a problem with the user's configuration: terminal until the
// configuration changes, with code ERR_CONFIGURATION_PROBLEM (which the gardenlet does not retry).
func ConfigurationError(err error) error {
	return &codedError{err: err, codes: []ErrorCode{ErrCodeConfigurationProblem}}
}

// RetriableError marks err as one that heals without a configuration change; the Network is retried
// after requeueAfter (0 means controller-runtime's backoff). codes go into status.lastError.
func RetriableError(err error, requeueAfter time.Duration, codes ...ErrorCode) error {
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

// IsConfigurationError reports whether err carries ERR_CONFIGURATION_PROBLEM anywhere in its chain.
func IsConfigurationError(err error) bool {
	for _, c := range errorCodes(err) {
		if c == string(ErrCodeConfigurationProblem) {
			return true
		}
	}
	return false
}

// toErrorCodes converts code strings to the API's error code type.
func toErrorCodes(codes []string) []gardencorev1beta1.ErrorCode {
	if len(codes) == 0 {
		return nil
	}
	out := make([]gardencorev1beta1.ErrorCode, len(codes))
	for i, c := range codes {
		out[i] = gardencorev1beta1.ErrorCode(c)
	}
	return out
}
