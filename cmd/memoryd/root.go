package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/logfile"
)

// manDescription is the manual page's description of memoryd.
const manDescription = `memoryd watches a folder of markdown memory files, one fact per file, in the user's notes git repository; ` +
	`rebuilds the indexes; commits after a debounce; compacts the store and extracts facts from the agents' sessions with a model; ` +
	`and gives the memory back to OpenCode, Claude Code and Codex (context, search, recall, MCP). ` +
	`The files are the truth: every change is a git commit that undo can take back.

Files: $XDG_CONFIG_HOME/memoryd/config.yaml (or $MEMORYD_CONFIG), the configuration; ` +
	`$XDG_STATE_HOME/memoryd, the state folder (status, logs, the search database, usage counts).

Exit status: 0 on success, 1 on a failure (or a finding, for doctor and check), 2 on a bad command line, ` +
	`3 for status when no daemon runs.`

// newRootCmd is the whole command line: memoryd and its commands, on a.
func newRootCmd(a *app) *cobra.Command {
	var showVersion bool
	root := &cobra.Command{
		Use:           "memoryd",
		Short:         "memoryd keeps an AI coding agent's long-term memory folder healthy.",
		Long:          manDescription,
		SilenceErrors: true,
		SilenceUsage:  true,
		// Args is reached only for a word that names no command.
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommandError{"memoryd", args[0]}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if showVersion {
				printVersion(a.stdout)
				return nil
			}
			printUsage(a.stderr, cmd)
			return exitError{code: exitUsage}
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.Flags().BoolVarP(&showVersion, "version", "v", false, "print the version")
	pf := root.PersistentFlags()
	pf.StringVar(&a.global.memoryDir, "memory-dir", "", "the memory folder `DIR` (overrides MEMORY_DIR and memory_dir)")
	pf.StringVar(&a.global.config, "config", "", "the configuration `FILE` (default: $MEMORYD_CONFIG, else $XDG_CONFIG_HOME/memoryd/config.yaml)")
	pf.BoolVar(&a.verbose, "verbose", false, "also print the log records the command writes to its log (memoryd logs)")
	root.MarkPersistentFlagDirname("memory-dir")
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { printHelp(cmd.OutOrStdout(), cmd) })
	root.SetUsageFunc(func(cmd *cobra.Command) error { printHelp(cmd.ErrOrStderr(), cmd); return nil })
	root.SuggestionsMinimumDistance = 2
	root.AddCommand(commandList(a)...)
	root.SetHelpCommand(newCmdHelp(a))
	root.InitDefaultHelpCmd()
	return root
}

// commandList is every command but help.
func commandList(a *app) []*cobra.Command {
	cmds := []*cobra.Command{
		newCmdAdd(a), newCmdCheck(a), newCmdCompact(a), newCmdCompletion(a), newCmdConfig(a),
		newCmdContext(a), newCmdDoctor(a), newCmdEdit(a), newCmdExtract(a), newCmdForget(a),
		newCmdHistory(a), newCmdImport(a), newCmdInstall(a), newCmdList(a), newCmdLogs(a),
		newCmdMan(a), newCmdMCP(a), newCmdRebuild(a), newCmdRecall(a), newCmdRecallTool(a), newCmdReview(a),
		newCmdRun(a), newCmdSearch(a), newCmdShare(a), newCmdShow(a), newCmdStatus(a), newCmdSync(a),
		newCmdUndo(a), newCmdUninstall(a), newCmdVersion(a), newCmdWhy(a),
	}
	return append(cmds, newCmdsControl(a)...)
}

// run is the whole command line: it returns the exit status and prints
// help on stdout, usage errors (one line, then the usage) and failures
// ("memoryd CMD: error") on stderr.
func run(ctx context.Context, args []string, e env) int {
	a := &app{env: e}
	if e.log == nil {
		a.log = logfile.NewCommand(e.stderr)
		defer a.log.Close()
	}
	root := newRootCmd(a)
	root.PersistentPreRun = func(*cobra.Command, []string) {
		if a.verbose && a.log != nil {
			a.log.SetVerbose(e.stderr)
		}
	}
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && !strings.HasPrefix(args[0], "__complete") {
		if c, _, err := root.Find(args[:1]); err != nil || c == root {
			return report(root, unknownCommandError{"memoryd", args[0]}, e)
		}
	}
	cmd, err := root.ExecuteContextC(ctx)
	return report(cmd, err, e)
}

// report prints err as cmd's failure and returns the exit status.
func report(cmd *cobra.Command, err error, e env) int {
	var ue usageError
	var xe exitError
	var uc unknownCommandError
	prefix := "memoryd " + cmd.Name() + ": "
	if !cmd.HasParent() {
		prefix = "memoryd: "
	}
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &uc):
		fmt.Fprint(e.stderr, uc.message(cmd.Root()))
		return exitUsage
	case errors.As(err, &xe):
		if xe.msg != "" {
			fmt.Fprintf(e.stderr, "%s%s\n", prefix, failureText(cmd.Name(), err))
		}
		return xe.code
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "%s%s\n", prefix, failureText(cmd.Name(), err))
		printHelp(e.stderr, cmd)
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "%s%s\n", prefix, failureText(cmd.Name(), err))
		return exitFail
	}
}

// unknownCommandError is a word that names no command, after prefix
// ("memoryd" or "memoryd help").
type unknownCommandError struct{ prefix, name string }

func (u unknownCommandError) Error() string { return "unknown command " + u.name }

// message says that the word is no command, with the one it most likely
// meant (cobra's suggestion), and where the list is: never the whole help.
func (u unknownCommandError) message(root *cobra.Command) string {
	msg := fmt.Sprintf("%s: unknown command %q", u.prefix, u.name)
	if s := root.SuggestionsFor(u.name); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", s[0])
	}
	return msg + "\nRun 'memoryd --help' for the list of commands.\n"
}

// newCmdHelp is `memoryd help [CMD]`, the same as `memoryd [CMD] --help`.
func newCmdHelp(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "Print the help of memoryd or of a command.",
		Args:  argsAtMost(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			if len(args) == 0 {
				printHelp(a.stdout, root)
				return nil
			}
			c, _, err := root.Find(args)
			if err != nil || c == root || !c.IsAvailableCommand() {
				return unknownCommandError{"memoryd help", args[0]}
			}
			printHelp(a.stdout, c)
			return nil
		},
	}
}

// printHelp prints cmd's synopsis, summary and flags; for the root, the
// list of commands.
func printHelp(w io.Writer, cmd *cobra.Command) {
	if !cmd.HasParent() {
		printUsage(w, cmd)
		return
	}
	fmt.Fprintf(w, "usage: memoryd %s\n\n%s\n\nflags:\n", cmd.Use, cmd.Short)
	cmd.InheritedFlags() // merges the global flags into cmd.Flags()
	fmt.Fprint(w, cmd.Flags().FlagUsages())
}

// printUsage is memoryd's own help: the commands and their summaries.
func printUsage(w io.Writer, root *cobra.Command) {
	fmt.Fprintln(w, root.Short)
	fmt.Fprintln(w, "\nusage: memoryd <command> [arguments] [flags]\n\ncommands:")
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" {
			fmt.Fprintf(w, "  %-*s %s\n", c.NamePadding(), c.Name(), c.Short)
		}
	}
	fmt.Fprintln(w, "\nRun 'memoryd <command> --help' for a command's flags, 'memoryd --version' for the version.")
}

// argsAtMost accepts up to n positional arguments.
func argsAtMost(n int) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) <= n:
			return nil
		case n == 0 && len(args) == 1:
			return usageError{"unexpected argument: " + args[0]}
		case n == 0:
			return usageError{"unexpected arguments: " + strings.Join(args, " ")}
		default:
			return usageError{fmt.Sprintf("too many arguments (at most %d): %s", n, strings.Join(args, " "))}
		}
	}
}

// exactArgs accepts n positional arguments; missing says what to give.
func exactArgs(n int, missing string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError{missing}
		}
		return argsAtMost(n)(cmd, args)
	}
}
