package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/config"
	memfolder "github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitsync"
	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/team"
)

type installFlags struct {
	*app
	opencode, claude, keepClaudeMemory, codex bool
	gitInit, noService, sync, noSync          bool
}

func newCmdInstall(a *app) *cobra.Command {
	o := &installFlags{app: a}
	cmd := &cobra.Command{
		Use:   "install [--memory-dir DIR] [--opencode] [--claude] [--keep-claude-memory] [--codex] [--git-init] [--no-service] [--sync|--no-sync]",
		Short: "Set up the memory folder, PROTOCOL.md, config and the per-user service (and the agents' wiring).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runInstall(cmd.Context(), o) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.opencode, "opencode", false, "OpenCode: PROTOCOL.md and MEMORY.md in its instructions, the MCP server, the project-index plugin")
	fl.BoolVar(&o.claude, "claude", false, "Claude Code: the MCP server, SessionStart (memoryd context) and UserPromptSubmit (memoryd recall) hooks, the read-only tools allowed, its own auto-memory off")
	fl.BoolVar(&o.keepClaudeMemory, "keep-claude-memory", false, "with --claude: leave Claude Code's own auto-memory on (install turns it off: one memory per agent)")
	fl.BoolVar(&o.codex, "codex", false, "Codex: the memory index in $CODEX_HOME/AGENTS.md (kept up to date), the MCP server, trusted SessionStart and UserPromptSubmit hooks")
	fl.BoolVar(&o.gitInit, "git-init", false, "run git init in the memory folder when it is not inside a repository")
	fl.BoolVar(&o.noService, "no-service", false, "set up everything but the service, and say how to run memoryd yourself")
	fl.BoolVar(&o.sync, "sync", false, "turn sync on (sync.enabled: true): the daemon pulls and pushes the notes repository's upstream")
	fl.BoolVar(&o.noSync, "no-sync", false, "leave sync off (sync.enabled: false) without asking")
	return cmd
}

func newCmdUninstall(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the service and every agent's wiring; memory files, repository and config stay.",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runUninstall(cmd.Context(), a) },
	}
}

// newCmdsControl are start, stop and restart.
func newCmdsControl(a *app) []*cobra.Command {
	var cmds []*cobra.Command
	for _, c := range []struct {
		name, summary string
		f             func(context.Context, install.Options) error
	}{
		{"start", "Start the installed service; without one, run memoryd in the background.", install.Start},
		{"stop", "Stop the service until the next login or start; without one, the background memoryd.", install.Stop},
		{"restart", "Restart the service (after upgrading the binary); without one, the background memoryd.", install.Restart},
	} {
		cmds = append(cmds, &cobra.Command{
			Use:   c.name,
			Short: c.summary,
			Args:  argsAtMost(0),
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runControl(cmd.Context(), a, c.name, c.f)
			},
		})
	}
	return cmds
}

// installOptions fills install.Options from the environment and flags.
func installOptions(e env, g globalFlags, memoryDir string) (install.Options, error) {
	home := e.getenv("HOME")
	if home == "" {
		return install.Options{}, errors.New("HOME is not set")
	}
	cfgPath := g.config
	if cfgPath == "" {
		cfgPath = defaultConfigPath(e)
	}
	cfgPath, err := filepath.Abs(cfgPath)
	if err != nil {
		return install.Options{}, err
	}
	bin, err := os.Executable()
	if err == nil {
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		return install.Options{}, fmt.Errorf("find the memoryd binary: %w", err)
	}
	return install.Options{
		Home:            home,
		XDGConfigHome:   e.getenv("XDG_CONFIG_HOME"),
		ClaudeConfigDir: e.getenv("CLAUDE_CONFIG_DIR"),
		CodexHome:       e.getenv("CODEX_HOME"),
		Binary:          bin,
		ConfigPath:      cfgPath,
		MemoryDir:       memoryDir,
		StateHome:       e.getenv("XDG_STATE_HOME"),
		WSL:             isWSL(e),
		Path:            e.getenv("PATH"),
		Stdout:          e.stdout,
	}, nil
}

// isWSL reports whether this is Windows Subsystem for Linux, whose shells
// have WSL_DISTRO_NAME and whose kernel release names Microsoft; without
// systemd turned on there, install's advice says how to turn it on.
func isWSL(e env) bool {
	if e.getenv("WSL_DISTRO_NAME") != "" {
		return true
	}
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	return err == nil && strings.Contains(strings.ToLower(string(data)), "microsoft")
}

// installMemoryDir finds the folder install should set up: the flag, else
// MEMORY_DIR, else the config file's memory_dir.
func installMemoryDir(e env, g globalFlags) (string, error) {
	cfg := config.Default()
	if dir := g.memoryDir; dir != "" {
		// A broken config file must not stop install from mending it.
		cfg.MemoryDir = dir
	} else if c, _, err := readConfig(e, g); err != nil {
		return "", err
	} else {
		cfg = c
	}
	if cfg.MemoryDir == "" {
		return "", usageError{"say which memory folder to use: --memory-dir DIR"}
	}
	if err := cfg.ExpandHome(e.getenv("HOME")); err != nil {
		return "", err
	}
	return filepath.Abs(cfg.MemoryDir)
}

func runInstall(ctx context.Context, fl *installFlags) error {
	e := fl.env
	dir, err := installMemoryDir(e, fl.global)
	if err != nil {
		return err
	}
	if real, rerr := state.RealPath(dir); rerr == nil {
		if err := memfolder.Suitable(real, e.getenv("HOME")); err != nil {
			return err
		}
	}
	o, err := installOptions(e, fl.global, dir)
	if err != nil {
		return err
	}
	o.OpenCode, o.Claude, o.Codex, o.KeepClaudeMemory = fl.opencode, fl.claude, fl.codex, fl.keepClaudeMemory
	o.GitInit, o.NoService = fl.gitInit, fl.noService
	o.Told = noManagerTold(e, dir)
	if o.Sync, err = installSync(ctx, fl, dir); err != nil {
		return err
	}
	r, err := install.Install(ctx, o)
	switch {
	case errors.Is(err, install.ErrNoUserManager):
		// Every other step is done: memoryd runs as memoryd start runs it.
		err = startWithoutManager(e, o)
	case err != nil:
		return err
	case r.Changed():
	case o.NoService:
		fmt.Fprintln(e.stdout, "memoryd is already set up (without a service); nothing changed")
	default:
		fmt.Fprintln(e.stdout, "memoryd is already installed; nothing changed")
	}
	if err == nil {
		fmt.Fprint(e.stdout, team.LoadAdvice(workDir()))
	}
	return err
}

func runUninstall(ctx context.Context, a *app) error {
	e := a.env
	dir, _ := installMemoryDir(e, a.global) // only used to find OpenCode's instructions
	o, err := installOptions(e, a.global, dir)
	if err != nil {
		return err
	}
	_, err = install.Uninstall(ctx, o)
	if f, ferr := openFolder(e, a.global); ferr == nil {
		err = errors.Join(err, background(f, a.global, e.stdout).StopHandRun())
	}
	return err
}

// installSync decides what install writes as sync.enabled: --sync or
// --no-sync; else, when the notes repository has an upstream and the
// config file says nothing of sync.enabled, the person's answer when
// install runs in a terminal, or nothing and a hint when it does not.
// nil means leave the config file as it is.
func installSync(ctx context.Context, fl *installFlags, dir string) (*bool, error) {
	e, on, off := fl.env, fl.sync, fl.noSync
	switch {
	case on && off:
		return nil, usageError{"--sync and --no-sync contradict each other: give one"}
	case on || off:
		return &on, nil
	}
	mf, err := memfolder.Open(memfolder.Options{Dir: dir, StateHome: stateHome(e)})
	if err != nil || mf.Repo() == nil {
		return nil, nil // no folder or repository (yet): nothing to sync with
	}
	cfg, _, _ := readConfig(e, fl.global)
	target, err := gitsync.Target(ctx, mf.Repo(), cfg.Sync.Remote)
	if err != nil || cfg.Origin("sync.enabled").Source != config.FromDefault {
		return nil, nil
	}
	if !isTerminal(e.stdin) || !isTerminal(e.stdout) {
		fmt.Fprintf(e.stdout, "The notes repository has an upstream (%s); sync is off. To share the memory with your other machines through it: memoryd install --sync\n", target)
		return nil, nil
	}
	fmt.Fprintf(e.stdout, "The notes repository has an upstream (%s). Turn sync on, so that the daemon pulls and pushes the memory through it? [y/N] ", target)
	answer, _ := bufio.NewReader(e.stdin).ReadString('\n')
	yes := strings.HasPrefix(strings.ToLower(strings.TrimSpace(answer)), "y")
	return &yes, nil
}
