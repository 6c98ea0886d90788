// Package cmd holds calico-pilot's cobra commands. Each subcommand lives in its own file with an
// options struct (AddFlags, Complete, Validate, Run); main only calls Execute.
package cmd
