package apiserverendpoints_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
)

// The lookup itself is tested against a real API server in test/integration/apiserverendpoints.

func TestLookupWithoutReader(t *testing.T) {
	_, err := (&apiserverendpoints.Source{}).Lookup(context.Background(), "shoot--p--s")
	want := "kube-apiserver addresses in namespace shoot--p--s: no client configured to read DNSRecords"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// isLookupError reports whether err (or an error it wraps) is a *apiserverendpoints.LookupError.
func isLookupError(err error) bool {
	var le *apiserverendpoints.LookupError
	return errors.As(err, &le) && le.Retriable()
}

func TestLookupErrorIsFound(t *testing.T) {
	lookupErr := &apiserverendpoints.LookupError{Namespace: "ns", Err: errors.New("x")}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "nil", err: nil, want: false},
		{name: "other error", err: errors.New("boom"), want: false},
		{name: "lookup error", err: lookupErr, want: true},
		{name: "wrapped lookup error", err: fmt.Errorf("determining addresses: %w", lookupErr), want: true},
		{name: "joined lookup error", err: errors.Join(errors.New("a"), lookupErr), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isLookupError(tt.err); got != tt.want {
				t.Errorf("isLookupError(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
