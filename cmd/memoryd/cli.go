package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"

	"github.com/adrg/xdg"

	"github.com/memoryd/memoryd/config"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// env is the outside world a command sees; tests give their own.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader
}

// command is one subcommand.
type command struct {
	name    string
	args    string // synopsis after the name
	summary string
	run     func(ctx context.Context, e env, fs *flag.FlagSet, args []string) error
	flags   func(fs *flag.FlagSet) // extra flags beyond the common ones
}

// usageError marks a bad command line (exit status 2).
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "memoryd: unknown command %q\n\n", args[0])
		printUsage(e.stderr)
		return exitUsage
	}
	fs := flag.NewFlagSet("memoryd "+c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "usage: memoryd %s %s\n\n%s\n\nflags:\n", c.name, c.args, c.summary)
		fs.PrintDefaults()
	}
	commonFlags(fs)
	if c.flags != nil {
		c.flags(fs)
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return exitOK
		}
		return exitUsage
	}
	err := c.run(ctx, e, fs, fs.Args())
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "memoryd %s: %v\n", c.name, err)
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "memoryd %s: %v\n", c.name, err)
		return exitFail
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "memoryd keeps an AI coding agent's long-term memory folder healthy.")
	fmt.Fprintln(w, "\nusage: memoryd <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'memoryd <command> --help' for a command's flags.")
}

// commonFlags are accepted by every command.
func commonFlags(fs *flag.FlagSet) {
	fs.String("memory-dir", "", "memory folder (overrides MEMORY_DIR and memory_dir)")
	fs.String("config", "", "configuration file (default: $XDG_CONFIG_HOME/memoryd/config.yaml)")
}

func flagString(fs *flag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
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

// loadConfig reads the configuration in the design's order: defaults, file,
// environment, flags; then validates it.
func loadConfig(e env, fs *flag.FlagSet) (config.Config, string, error) {
	path, explicit := flagString(fs, "config"), true
	if path == "" {
		path, explicit = defaultConfigPath(e), false
	}
	cfg, err := config.Load(path, explicit, e.getenv)
	if err != nil {
		return cfg, path, err
	}
	if d := flagString(fs, "memory-dir"); d != "" {
		cfg.MemoryDir = d
	}
	if strings.HasPrefix(cfg.MemoryDir, "~/") {
		if home := e.getenv("HOME"); home != "" {
			cfg.MemoryDir = filepath.Join(home, cfg.MemoryDir[2:])
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, path, fmt.Errorf("invalid configuration (%s):\n%w", path, err)
	}
	return cfg, path, nil
}

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
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
