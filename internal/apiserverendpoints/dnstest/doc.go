// Package dnstest runs real DNS servers (github.com/miekg/dns) on loopback for tests: a Zone
// answers like a recursive resolver from records given as zone-file lines, and can be told to
// fail (SERVFAIL, REFUSED, NXDOMAIN), to fail only the first queries, to answer with a CNAME only,
// to truncate UDP answers, or not to answer at all.
package dnstest
