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
	"text/tabwriter"

	"github.com/adrg/xdg"

	"github.com/memoryd/memoryd/internal/config"
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
}

// command is one subcommand.
type command struct {
	name string
	// args is the synopsis after the name. Flags are written in brackets
	// with their value ([--session ID]); every other group ([COMMIT]) is
	// one positional argument, "..." any number. run refuses more
	// arguments than the synopsis shows, so a command never sees them.
	args    string
	summary string
	run     func(ctx context.Context, e env, fs *flag.FlagSet, args []string) error
	flags   func(fs *flag.FlagSet) // extra flags beyond the common ones
	hidden  bool                   // left out of the help, the suggestions and the completion
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

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// run is the whole command line: it returns the exit status and prints
// help on stdout, usage errors (one line, then the usage) and failures
// ("memoryd CMD: error") on stderr.
func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if args[0] == "help" && len(args) > 1 {
			return helpFor(args[1], e)
		}
		printUsage(e.stdout)
		return exitOK
	case "-v", "-version", "--version":
		printVersion(e.stdout)
		return exitOK
	case completeFactsCmd:
		completeFacts(args[1:], e)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprint(e.stderr, unknownCommand("memoryd", args[0]))
			return exitUsage
		}
		fmt.Fprintf(e.stderr, "memoryd: unknown flag %q (flags go after the command: memoryd <command> %s)\n", args[0], args[0])
		if s := suggest(strings.TrimLeft(args[0], "-"), []string{"help", "version"}); s != "" {
			fmt.Fprintf(e.stderr, "Did you mean --%s?\n", s)
		}
		printUsage(e.stderr)
		return exitUsage
	}
	return runCommand(ctx, c, args[1:], e)
}

// runCommand parses c's flags and arguments and runs it.
func runCommand(ctx context.Context, c *command, args []string, e env) int {
	fs := newFlagSet(c)
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printCommandUsage(e.stdout, c, fs)
		return exitOK
	}
	if err == nil {
		err = checkArgCount(c, pos)
	}
	if err == nil {
		err = c.run(ctx, e, fs, pos)
	}
	var ue usageError
	var xe exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &xe):
		if xe.msg != "" {
			fmt.Fprintf(e.stderr, "memoryd %s: %s\n", c.name, failureText(c.name, err))
		}
		return xe.code
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "memoryd %s: %s\n", c.name, failureText(c.name, err))
		printCommandUsage(e.stderr, c, fs)
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "memoryd %s: %s\n", c.name, failureText(c.name, err))
		return exitFail
	}
}

// helpFor is `memoryd help CMD`, the same as `memoryd CMD --help`.
func helpFor(name string, e env) int {
	c, ok := commands[name]
	if !ok || c.hidden {
		fmt.Fprint(e.stderr, unknownCommand("memoryd help", name))
		return exitUsage
	}
	printCommandUsage(e.stdout, c, newFlagSet(c))
	return exitOK
}

// newFlagSet has c's flags and the common ones. It prints nothing itself:
// run prints help and errors once, where they belong.
func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("memoryd "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	commonFlags(fs)
	if c.flags != nil {
		c.flags(fs)
	}
	return fs
}

// parseArgs parses flags wherever they appear, as git does
// (`memoryd undo abc123 --memory-dir DIR`), and returns the positional
// arguments in order. "--" ends the flags: everything after it is
// positional. (A flag whose value is literally "--" must be written
// --flag=--.)
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, err
		} else if err != nil {
			return nil, flagError(fs, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// checkArgCount refuses more positional arguments than c's synopsis shows.
func checkArgCount(c *command, pos []string) error {
	max := maxArgs(c.args)
	switch {
	case max < 0 || len(pos) <= max:
		return nil
	case max == 0 && len(pos) == 1:
		return usageError{"unexpected argument: " + pos[0]}
	case max == 0:
		return usageError{"unexpected arguments: " + strings.Join(pos, " ")}
	default:
		return usageError{fmt.Sprintf("too many arguments (at most %d): %s", max, strings.Join(pos, " "))}
	}
}

// maxArgs is how many positional arguments a synopsis allows, or -1 for
// any number. See command.args for the convention.
func maxArgs(synopsis string) int {
	n := 0
	for rest := strings.TrimSpace(synopsis); rest != ""; rest = strings.TrimSpace(rest) {
		var group string
		if rest[0] == '[' {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				end = len(rest)
				rest += "]"
			}
			group, rest = strings.TrimSpace(rest[1:end]), rest[end+1:]
		} else {
			group, rest, _ = strings.Cut(rest, " ")
		}
		switch {
		case strings.HasPrefix(group, "-"):
		case strings.Contains(group, "..."):
			return -1
		default:
			n++
		}
	}
	return n
}

// failureText is err's text without a leading "CMD: " (or "memoryd CMD: "),
// which errors from below often carry and run already prints.
func failureText(name string, err error) string {
	msg := plainText(err.Error())
	for {
		trimmed := strings.TrimPrefix(strings.TrimPrefix(msg, "memoryd "+name+": "), name+": ")
		if trimmed == msg {
			return msg
		}
		msg = trimmed
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "memoryd keeps an AI coding agent's long-term memory folder healthy.")
	fmt.Fprintln(w, "\nusage: memoryd <command> [arguments] [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'memoryd <command> --help' for a command's flags, 'memoryd --version' for the version.")
}

// printCommandUsage prints c's synopsis, summary and flags.
func printCommandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nflags:\n", strings.TrimSpace("memoryd "+c.name+" "+c.args), c.summary)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := describeFlag(f)
		fmt.Fprintf(tw, "  %s\t%s\n", name, usage)
	})
	tw.Flush()
}

// describeFlag is how help and the manual page show flag f: its name with
// a placeholder for its value ("--type TYPE"), and what it does with its
// valid values and default.
func describeFlag(f *flag.Flag) (name, usage string) {
	value, usage := flag.UnquoteUsage(f)
	switch value {
	case "int":
		value = "N"
	case "string", "value":
		value = "VALUE"
	case "duration":
		value = "DURATION"
	}
	if vals := enumValues(f); len(vals) > 0 && !strings.Contains(usage, vals[0]) {
		usage += " (" + strings.Join(vals, ", ") + ")"
	}
	name = "--" + f.Name
	if len(f.Name) == 1 {
		name = "-" + f.Name
	}
	if value != "" {
		name += " " + value
	}
	if d := f.DefValue; d != "" && d != "0" && d != "false" {
		usage += " (default " + d + ")"
	}
	return name, usage
}

// commonFlags are accepted by every command.
func commonFlags(fs *flag.FlagSet) {
	fs.String("memory-dir", "", "the memory folder `DIR` (overrides MEMORY_DIR and memory_dir)")
	fs.String("config", "", "the configuration `FILE` (default: $MEMORYD_CONFIG, else $XDG_CONFIG_HOME/memoryd/config.yaml)")
}

func flagString(fs *flag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

func flagBool(fs *flag.FlagSet, name string) bool { return flagString(fs, name) == "true" }

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
func readConfig(e env, fs *flag.FlagSet) (config.Config, string, error) {
	path, explicit := flagString(fs, "config"), true
	if path == "" {
		path, explicit = defaultConfigPath(e), false
	}
	cfg, err := config.Load(path, explicit, e.getenv)
	errs := []error{err}
	if d := flagString(fs, "memory-dir"); d != "" {
		errs = append(errs, cfg.Set("memory_dir", d, config.Origin{Source: config.FromFlag, Name: "--memory-dir"}))
	}
	errs = append(errs, cfg.ExpandHome(e.getenv("HOME")))
	if err := errors.Join(errs...); err != nil {
		return cfg, path, configError{err}
	}
	return cfg, path, nil
}

// loadConfig is readConfig, then Validate.
func loadConfig(e env, fs *flag.FlagSet) (config.Config, string, error) {
	cfg, path, err := readConfig(e, fs)
	if err != nil {
		return cfg, path, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, path, configError{err}
	}
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
	return slog.New(newDedupeHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})))
}
