package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// Log levels and formats of --log-level and --log-format (Gardener's).
var (
	logLevels  = []string{"debug", "info", "error"}
	logFormats = []string{"json", "text"}
)

// LogOptions are the logging flags of the long-running commands (controller and admission): one
// flag set, one validation, one logger. The commands build the logger in Run, never in Complete.
type LogOptions struct {
	// Level is debug, info or error; Format is json or text.
	Level  string
	Format string
}

// NewLogOptions returns Gardener's defaults: info, json.
func NewLogOptions() *LogOptions { return &LogOptions{Level: "info", Format: "json"} }

// AddFlags registers --log-level and --log-format.
func (l *LogOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&l.Level, "log-level", l.Level, "log level: "+strings.Join(logLevels, ", "))
	fs.StringVar(&l.Format, "log-format", l.Format, "log format: "+strings.Join(logFormats, ", "))
}

// Validate checks the values; every error names the flag and what is accepted.
func (l *LogOptions) Validate() []error {
	var errs []error
	if !slices.Contains(logLevels, l.Level) {
		errs = append(errs, fmt.Errorf("--log-level %q: must be one of %s", l.Level, strings.Join(logLevels, ", ")))
	}
	if !slices.Contains(logFormats, l.Format) {
		errs = append(errs, fmt.Errorf("--log-format %q: must be one of %s", l.Format, strings.Join(logFormats, ", ")))
	}
	return errs
}

// Logger builds the logger the flags ask for, writing to w, with extra zap options (the admission
// logs errors without stack traces). Call after Validate.
func (l *LogOptions) Logger(w io.Writer, extra ...zap.Opts) logr.Logger {
	level := zapcore.InfoLevel
	switch l.Level {
	case "debug":
		level = zapcore.DebugLevel
	case "error":
		level = zapcore.ErrorLevel
	}
	opts := []zap.Opts{
		zap.WriteTo(w),
		zap.Level(level),
		func(o *zap.Options) { o.TimeEncoder = zapcore.ISO8601TimeEncoder },
	}
	if l.Format == "text" {
		opts = append(opts, zap.ConsoleEncoder(func(c *zapcore.EncoderConfig) { c.EncodeDuration = zapcore.StringDurationEncoder }))
	} else {
		opts = append(opts, zap.JSONEncoder(func(c *zapcore.EncoderConfig) { c.EncodeDuration = zapcore.StringDurationEncoder }))
	}
	return zap.New(append(opts, extra...)...)
}
