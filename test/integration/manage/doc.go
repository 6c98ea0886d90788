// Package manage tests `calico-pilot manage` against a real API server: the controller installs a
// fresh cluster from a Cluster object and reports on it, restores hand edits with an Event, leaves an
// annotated object alone, completes a release move across a restart, and lets `apply -f` write only
// the Cluster while it runs. The workload controllers are played by writing status, as in the apply
// suite.
package manage
