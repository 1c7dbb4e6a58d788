package main

import (
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/adrg/xdg"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/logfile"
	"github.com/memoryd/memoryd/internal/plain"
	"github.com/memoryd/memoryd/internal/thesaurus"
)

// Exit statuses.
const (
	exitOK         = 0
	exitFail       = 1
	exitUsage      = 2
	exitNotRunning = 3 // `memoryd status`: no daemon runs, as `systemctl status` says
)

// env is the outside world a command sees; tests give their own.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader
	log    *logfile.Command // where log records go; nil: standard error
}

// globalFlags are the flags every command takes.
type globalFlags struct {
	memoryDir string // --memory-dir
	config    string // --config
}

// app is what every command's options share: the outside world and the
// global flags, which the root command's persistent flags fill in.
type app struct {
	env
	global  globalFlags
	verbose bool // --verbose: log records on standard error too
}

// usageError marks a bad command line (exit status 2).
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// exitError ends a command with a chosen exit status once it has said what
// it had to; msg, when set, is printed like any failure.
type exitError struct {
	code int
	msg  string
}

func (x exitError) Error() string { return x.msg }

// failureText is err's text without a leading "CMD: " (or "memoryd CMD: "),
// which errors from below often carry and run already prints.
func failureText(name string, err error) string {
	msg := plain.Text(err.Error())
	for {
		trimmed := strings.TrimPrefix(strings.TrimPrefix(msg, "memoryd "+name+": "), name+": ")
		if trimmed == msg {
			return msg
		}
		msg = trimmed
	}
}

// defaultConfigPath is where the configuration lives when --config is not given.
func defaultConfigPath(e env) string {
	if p := e.getenv("MEMORYD_CONFIG"); p != "" {
		return p
	}
	home := e.getenv("XDG_CONFIG_HOME")
	if home == "" {
		home = xdg.ConfigHome
	}
	return filepath.Join(home, "memoryd", "config.yaml")
}

// readConfig reads the configuration in the design's order — defaults,
// file, environment, flags — and expands ~/ in paths, once, here. It does
// not validate. On error it still returns what it could read, so that
// `memoryd config` can show it. It returns the configuration file's path.
func readConfig(e env, g globalFlags) (config.Config, string, error) {
	path, explicit := g.config, true
	if path == "" {
		path, explicit = defaultConfigPath(e), false
	}
	cfg, err := config.Load(path, explicit, e.getenv)
	errs := []error{err}
	if d := g.memoryDir; d != "" {
		errs = append(errs, cfg.Set("memory_dir", d, config.Origin{Source: config.FromFlag, Name: "--memory-dir"}))
	}
	errs = append(errs, cfg.ExpandHome(e.getenv("HOME")))
	if err := errors.Join(errs...); err != nil {
		return cfg, path, configError{err}
	}
	return cfg, path, nil
}

// loadConfig is readConfig, then Validate; a valid configuration's
// search.thesaurus is what this process's searches use (it is one for the
// process, as the configuration is).
func loadConfig(e env, g globalFlags) (config.Config, string, error) {
	cfg, path, err := readConfig(e, g)
	if err != nil {
		return cfg, path, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, path, configError{err}
	}
	thesaurus.Configure(cfg.Search.Thesaurus)
	return cfg, path, nil
}

// configError presents configuration errors: one on its line as it is
// (it already names the file and line, or the variable, and the key);
// several as an indented list.
type configError struct{ err error }

func (c configError) Error() string {
	msg := c.err.Error()
	if !strings.Contains(msg, "\n") {
		return msg
	}
	return "invalid configuration:\n  " + strings.ReplaceAll(msg, "\n", "\n  ")
}

func (c configError) Unwrap() error { return c.err }

// stateHome is the user state directory ($XDG_STATE_HOME).
func stateHome(e env) string {
	if h := e.getenv("XDG_STATE_HOME"); h != "" {
		return h
	}
	return xdg.StateHome
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level))
	return slog.New(logfile.Dedupe(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})))
}

// logWriter is where e's loggers write: the command log when the command
// line set one up, else standard error.
func (e env) logWriter() io.Writer {
	if e.log != nil {
		return e.log
	}
	return e.stderr
}
