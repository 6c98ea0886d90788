package cmd

import (
	"fmt"

	"github.com/spf13/pflag"
)

// The output formats of the commands that print a report: text for people, JSON for programs.
const (
	outputText = "text"
	outputJSON = "json"
)

// addOutputFlag registers a report's format flag (--output/-o) defaulting to text. bump's
// --report-format has its own words and is checked by checkOutput all the same.
func addOutputFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVarP(p, "output", "o", outputText, "output format: text or json")
}

// checkOutput is the one check of a report format flag's value: the flag, what was given and what
// is accepted.
func checkOutput(flag, value string) error {
	if value != outputText && value != outputJSON {
		return fmt.Errorf("--%s %q is not supported, use text or json", flag, value)
	}
	return nil
}
