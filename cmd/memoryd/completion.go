package main

import (
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/index"
)

// Shell completion: `memoryd completion SHELL` prints cobra's script,
// which asks the binary (cobra's hidden __complete) for commands, flags,
// the fixed values of flags (enumFlag) and fact names (completeFacts).

var completionShells = []string{"bash", "zsh", "fish", "powershell"}

type completionOptions struct {
	*app
	shell string
}

func newCmdCompletion(a *app) *cobra.Command {
	o := &completionOptions{app: a}
	return &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print a shell completion script: commands, flags, their values and fact names. bash: source <(memoryd completion bash); zsh: source <(memoryd completion zsh); fish: memoryd completion fish | source.",
		ValidArgs: completionShells,
		Args:      cobra.MatchAll(exactArgs(1, "name the shell: bash, zsh, fish or powershell"), oneOfArg(0, "shell", completionShells)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.shell = args[0]
			return runCompletion(cmd.Root(), o)
		},
	}
}

func runCompletion(root *cobra.Command, o *completionOptions) error {
	switch o.shell {
	case "bash":
		return root.GenBashCompletionV2(o.stdout, true)
	case "zsh":
		return root.GenZshCompletion(o.stdout)
	case "fish":
		return root.GenFishCompletion(o.stdout, true)
	default:
		return root.GenPowerShellCompletionWithDesc(o.stdout)
	}
}

// completeFacts is the ValidArgsFunction of the commands whose one
// argument is a fact: the names of the memory folder's facts that start
// with toComplete, each file's name without .md and each name a single
// fact has. Any problem completes nothing: a shell completing a word has
// nowhere to show an error.
func completeFacts(a *app) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return factNames(a, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeProjects completes --project with the projects the memory
// folder's facts hold in.
func completeProjects(a *app) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []string
		for _, m := range scanForCompletion(a) {
			if m.Project != "" && strings.HasPrefix(m.Project, toComplete) {
				out = append(out, m.Project)
			}
		}
		sort.Strings(out)
		return slices.Compact(out), cobra.ShellCompDirectiveNoFileComp
	}
}

// scanForCompletion is the facts of the memory folder the command line
// names (or the configured one), none on any error.
func scanForCompletion(a *app) []*index.Memory {
	cfg, _, err := readConfig(a.env, a.global)
	if err != nil || cfg.MemoryDir == "" {
		return nil
	}
	snap, err := index.Scan(cfg.MemoryDir)
	if err != nil {
		return nil
	}
	return snap.Memories
}

// factNames are the names of the memory folder's facts that start with
// prefix (facts.Names).
func factNames(a *app, prefix string) []string { return facts.Names(scanForCompletion(a), prefix) }
