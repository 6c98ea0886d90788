package apiserverendpoints_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
)

func TestNets(t *testing.T) {
	tests := []struct {
		name  string
		addrs []netip.Addr
		want  []string
	}{
		{name: "none", addrs: nil, want: []string{}},
		{
			name:  "sorted, IPv4 first, de-duplicated",
			addrs: addrs("2001:db8::1", "192.0.2.34", "10.0.0.1", "192.0.2.34", "2001:db8::1"),
			want:  []string{"10.0.0.1/32", "192.0.2.34/32", "2001:db8::1/128"},
		},
		{
			name:  "IPv4-mapped IPv6 is IPv4, zones dropped",
			addrs: append(addrs("::ffff:192.0.2.1", "192.0.2.1"), netip.MustParseAddr("fe80::1%eth0")),
			want:  []string{"192.0.2.1/32", "fe80::1/128"},
		},
		{
			name:  "invalid addresses skipped",
			addrs: []netip.Addr{{}, netip.MustParseAddr("203.0.113.9")},
			want:  []string{"203.0.113.9/32"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nets := apiserverendpoints.Nets(tt.addrs)
			got := make([]string, len(nets))
			for i, n := range nets {
				got[i] = n.String()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("nets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequeueInterval(t *testing.T) {
	tests := []struct {
		name          string
		ttl, min, max time.Duration
		want          time.Duration
	}{
		{name: "within bounds", ttl: 5 * time.Minute, min: time.Minute, max: time.Hour, want: 5 * time.Minute},
		{name: "below minimum", ttl: 10 * time.Second, min: time.Minute, max: time.Hour, want: time.Minute},
		{name: "zero TTL gets the minimum", ttl: 0, min: time.Minute, max: time.Hour, want: time.Minute},
		{name: "above maximum", ttl: 24 * time.Hour, min: time.Minute, max: time.Hour, want: time.Hour},
		{name: "no bounds", ttl: 90 * time.Second, want: 90 * time.Second},
		{name: "only a maximum", ttl: 2 * time.Hour, max: time.Hour, want: time.Hour},
		{name: "minimum above maximum: maximum wins", ttl: 30 * time.Second, min: 2 * time.Hour, max: time.Hour, want: time.Hour},
		{name: "negative TTL without bounds is zero", ttl: -time.Second, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := apiserverendpoints.RequeueInterval(tt.ttl, tt.min, tt.max); got != tt.want {
				t.Errorf("RequeueInterval(%s, %s, %s) = %s, want %s", tt.ttl, tt.min, tt.max, got, tt.want)
			}
		})
	}
}

func TestResultRequeueAfter(t *testing.T) {
	tests := []struct {
		name   string
		result apiserverendpoints.Result
		want   time.Duration
	}{
		{name: "nothing resolved: no TTL-driven requeue", result: apiserverendpoints.Result{TTL: 0}, want: 0},
		{name: "resolved with TTL 0: the minimum", result: apiserverendpoints.Result{Resolved: true, TTL: 0}, want: 30 * time.Second},
		{name: "resolved: bounded TTL", result: apiserverendpoints.Result{Resolved: true, TTL: 5 * time.Minute}, want: 5 * time.Minute},
		{name: "resolved: long TTL capped", result: apiserverendpoints.Result{Resolved: true, TTL: 48 * time.Hour}, want: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.result.RequeueAfter(30*time.Second, time.Hour); got != tt.want {
				t.Errorf("RequeueAfter = %s, want %s", got, tt.want)
			}
		})
	}
}
