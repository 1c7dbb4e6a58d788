// Package install sets memoryd up for a user: the memory folder, the config
// file, PROTOCOL.md, a per-user service (a systemd user unit on Linux, a
// launchd agent on macOS) and OpenCode's global "instructions".
//
// The service files are rendered by this package (RenderSystemdUnit,
// RenderLaunchdPlist: pure functions, checkable on any OS) and the service
// manager is driven through systemctl --user and launchctl found on the PATH
// in Options. kardianos/service is not used for this: its Install refuses to
// run when the file exists (so install is not idempotent), writes the user
// unit to $HOME/.config/systemd/user whatever XDG_CONFIG_HOME says, reads
// HOME and PATH from the process, and enables without starting.
//
// Nothing here reads environment variables: the CLI passes them in Options.
// The platform is chosen at run time from Options.GOOS (not by build tags) so
// that both platforms' files are tested everywhere.
package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/protocol"
)

// ErrNoUserManager is returned when no per-user service manager can be
// reached: no systemd user instance (no login session, no XDG_RUNTIME_DIR,
// a container) or no launchd GUI session.
var ErrNoUserManager = errors.New("no per-user service manager is reachable")

// ErrUnitDir is returned on Linux when the systemd user manager does not
// search the folder Options puts the unit in (XDG_CONFIG_HOME differs).
var ErrUnitDir = errors.New("unit folder mismatch")

// ErrNotInstalled is returned by Start, Stop and Restart when the service
// file is missing.
var ErrNotInstalled = errors.New("the memoryd service is not installed (run `memoryd install`)")

// Options says where everything is. The CLI fills it from the environment
// and flags; paths must be absolute.
type Options struct {
	Home          string // the user's home folder (required)
	XDGConfigHome string // $XDG_CONFIG_HOME, "" if unset; holds systemd/user/ and opencode/
	Binary        string // the memoryd executable the service runs (Install)
	ConfigPath    string // memoryd's config file, written by Install and given to the service
	MemoryDir     string // the memory folder (Install; Uninstall uses it to find OpenCode entries)
	OpenCode      bool   // Install: OpenCode's instructions (PROTOCOL.md, MEMORY.md), MCP server and plugin
	Claude        bool   // Install: Claude Code's MCP server, SessionStart hook and read-only tool permissions
	Codex         bool   // Install: Codex's AGENTS.md index block and MCP server
	// ClaudeConfigDir is $CLAUDE_CONFIG_DIR ("" → ~/.claude and ~/.claude.json).
	ClaudeConfigDir string
	// CodexHome is $CODEX_HOME ("" → ~/.codex).
	CodexHome string
	GitInit   bool // Install: `git init` the memory folder itself when no repository encloses it
	NoService bool // Install: every step but the service; the advice says how to run memoryd
	// Told: Install has explained before how memoryd runs without a
	// per-user service manager; without one it now says so in one line.
	Told bool
	// Sync, when not nil, is what Install writes as sync.enabled in the
	// config file (--sync, --no-sync, or the person's answer).
	Sync *bool
	// KeepClaudeMemory leaves Claude Code's own auto-memory as it is;
	// otherwise Install (with Claude) turns it off and Uninstall restores it.
	KeepClaudeMemory bool
	// WSL says this is Windows Subsystem for Linux, where a missing systemd
	// is a setting: the advice then shows how to turn it on.
	WSL bool
	// StateHome is $XDG_STATE_HOME ("" → ~/.local/state); the advice for
	// running memoryd without a service logs to memoryd/memoryd.log in it.
	StateHome string
	// Path is the PATH baked into the service, so it must hold the folders of
	// git and opencode; systemctl, launchctl and git are looked up in it too.
	Path   string
	Env    []string  // environment for the commands run; nil → the process's; PATH is always Path
	GOOS   string    // "" → runtime.GOOS; "linux" and "darwin" are supported
	Stdout io.Writer // progress and advice for a person; nil → discarded
}

// Spec is what a service file says: run Binary with `run --config
// ConfigPath` and PATH=Path; LogDir is where launchd writes the output
// (systemd sends it to the journal).
type Spec struct {
	Binary, ConfigPath, Path, LogDir string
}

// Spec returns the service definition Install writes for o.
func (o *Options) Spec() Spec {
	return Spec{Binary: o.Binary, ConfigPath: o.ConfigPath, Path: CleanPath(o.Path), LogDir: launchdLogDir(o.Home)}
}

// Outcome says what a step did.
type Outcome string

const (
	Created   Outcome = "created"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
	Removed   Outcome = "removed"
	Kept      Outcome = "kept"     // deliberately left in place
	Found     Outcome = "found"    // already there, not ours to change
	Missing   Outcome = "missing"  // not there, and not created
	Skipped   Outcome = "skipped"  // not done, as asked (--no-service)
	NotDone   Outcome = "not done" // could not be done here; the hints say what to do instead
)

// Step is one line of a Report.
type Step struct {
	What    string // "memory folder", "config file", "protocol", "git repository", "service file", "service", "opencode"
	Path    string
	Outcome Outcome
	Note    string
}

// Report lists what Install or Uninstall did, in order, and advice for the
// user (how to read logs, keep running after logout, missing tools).
type Report struct {
	Steps []Step
	Hints []string
}

// Changed reports whether any step created, updated or removed something.
func (r Report) Changed() bool {
	for _, s := range r.Steps {
		if s.Outcome == Created || s.Outcome == Updated || s.Outcome == Removed {
			return true
		}
	}
	return false
}

func (r *Report) step(o *Options, s Step) {
	r.Steps = append(r.Steps, s)
	note := ""
	if s.Note != "" {
		note = " (" + s.Note + ")"
	}
	fmt.Fprintf(o.out(), "%-9s %-14s %s%s\n", s.Outcome, s.What, s.Path, note)
}

func (r *Report) hint(o *Options, h string) {
	r.Hints = append(r.Hints, h)
	fmt.Fprintf(o.out(), "  %s\n", strings.ReplaceAll(h, "\n", "\n  "))
}

// Install sets everything up, in order: the memory folder (created if
// missing), the config file (created with memory_dir, or memory_dir added
// to it; an existing memory_dir naming another folder is an error),
// PROTOCOL.md (only if missing), the git check (`git init` in the memory
// folder with GitInit), the service file and the service (enabled and
// started; restarted when its file changed) and, with OpenCode, the OpenCode
// instructions. It is idempotent: a second run with the same Options writes
// nothing, runs no command that changes the service and reports no step
// Created, Updated or Removed (Report.Changed is false). On error, the steps
// before it stay done.
//
// The service manager is asked first. When the systemd user manager looks
// for units elsewhere (ErrUnitDir) nothing is changed. When there is none
// (ErrNoUserManager: WSL without systemd, a container, no login session)
// every other step is still done, the service step is reported NotDone, the
// hints say how to get a manager and how to run memoryd meanwhile, and the
// error returned wraps ErrNoUserManager; running Install again once there is
// a manager completes the service step. With NoService the manager is not
// asked, the service step is Skipped and the error is nil.
func Install(ctx context.Context, o Options) (Report, error) {
	var r Report
	if err := o.check(true); err != nil {
		return r, err
	}
	m, err := o.manager()
	if err != nil {
		return r, err
	}
	var noManager error
	if !o.NoService {
		err := m.reachable(ctx)
		switch {
		case errors.Is(err, ErrNoUserManager):
			noManager = err
		case err != nil:
			return r, fmt.Errorf("install: %w", err)
		}
	}
	// Every agent file install will change is checked before anything is
	// written: a refusal leaves them all as they are.
	if _, err := planAgents(&o); err != nil {
		return r, err
	}
	if err := setupFolder(ctx, &o, &r); err != nil {
		return r, err
	}
	if err := serviceStep(ctx, &o, &r, m, noManager); err != nil {
		return r, err
	}
	if o.OpenCode {
		if err := wireStep(&o, &r); err != nil {
			return r, err
		}
	}
	if err := wireAgents(&o, &r); err != nil {
		return r, err
	}
	for _, h := range append(serviceHints(&o, m, noManager), toolHints(&o)...) {
		r.hint(&o, h)
	}
	if noManager != nil {
		return r, fmt.Errorf("install: the service step could not be done (everything else is, see above): %w", noManager)
	}
	return r, nil
}

// serviceStep installs and starts the service, or reports why it did not:
// --no-service, or noManager (no per-user service manager reachable).
func serviceStep(ctx context.Context, o *Options, r *Report, m manager, noManager error) error {
	service := Step{What: "service", Path: m.platform() + " " + filepath.Base(m.file())}
	switch {
	case o.NoService:
		service.Outcome, service.Note = Skipped, "--no-service"
		r.step(o, service)
	case noManager != nil:
		service.Outcome, service.Note = NotDone, "no per-user service manager: "+withoutPrefix(noManager)
		r.step(o, service)
	default:
		return setupService(ctx, o, r, m)
	}
	return nil
}

// serviceHints are what install tells about how memoryd keeps running:
// the service manager's own hints, or how to start memoryd without one.
func serviceHints(o *Options, m manager, noManager error) []string {
	switch {
	case noManager != nil && o.Told:
		return []string{"No per-user service manager here: memoryd runs as a background process without one " +
			"(memoryd start; the README's \"Without a service manager\" says how to get one)."}
	case noManager != nil:
		return []string{"There is no per-user service manager here, so memoryd runs as a background process " +
			"of its own (as memoryd start does), which nothing starts again after a reboot or a logout.",
			managerAdvice(o, m), selfStartAdvice(o, "After a reboot run memoryd start again, or")}
	case o.NoService:
		return []string{selfStartAdvice(o, "No service was installed (--no-service):")}
	}
	return m.hints()
}

// wireStep adds memoryd's entries to OpenCode's instructions.
func wireStep(o *Options, r *Report) error {
	dir := OpenCodeDir(o.Home, o.XDGConfigHome)
	existed := map[string]bool{}
	before := map[string][]byte{}
	for _, name := range OpenCodeFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		existed[filepath.Join(dir, name)], before[filepath.Join(dir, name)] = err == nil, data
	}
	file, changed, err := WireOpenCode(dir, Instructions(o.MemoryDir))
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	if recs := o.loadFileRecords(); changed && recs.note(file, existed[file], before[file]) {
		if err := o.saveFileRecords(recs); err != nil {
			return fmt.Errorf("install: %w", err)
		}
	}
	res := outcome(changed, Updated)
	if changed && !existed[file] {
		res = Created
	}
	r.step(o, Step{What: "opencode", Path: file, Outcome: res, Note: "instructions: PROTOCOL.md, MEMORY.md"})
	return nil
}

// setupService writes the service file and makes the manager use it.
func setupService(ctx context.Context, o *Options, r *Report, m manager) error {
	file := m.file()
	_, statErr := os.Lstat(file)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("install: service folder: %w", err)
	}
	changed, err := writeFollowing(file, m.render(o.Spec()), 0o644)
	if err != nil {
		return fmt.Errorf("install: service file: %w", err)
	}
	res := outcome(changed, Updated)
	if statErr != nil {
		res = Created
	}
	r.step(o, Step{What: "service file", Path: file, Outcome: res})
	did, err := m.activate(ctx, changed)
	if err != nil {
		return fmt.Errorf("install: %s: %w", m.platform(), err)
	}
	r.step(o, Step{What: "service", Path: m.platform() + " " + filepath.Base(file), Outcome: outcome(did != "", Updated), Note: did})
	return nil
}

// Uninstall stops and removes the service, removes the OpenCode
// instructions Install adds (found from MemoryDir; skipped when it is "")
// and memoryd's part of every agent's files (MCP servers, hooks, plugin,
// AGENTS.md block), leaving the rest of them byte for byte. It keeps the
// config file, the memory folder, its files and its git repository, and
// says so. It goes on past errors (a service manager that can not be
// reached still lets the file go) and returns them joined.
func Uninstall(ctx context.Context, o Options) (Report, error) {
	var r Report
	if err := o.check(false); err != nil {
		return r, err
	}
	m, err := o.manager()
	if err != nil {
		return r, err
	}
	var errs []error
	if _, err := os.Lstat(m.file()); err == nil {
		reach := m.reachable(ctx)
		if reach == nil {
			reach = m.deactivate(ctx)
		}
		if reach != nil {
			errs = append(errs, fmt.Errorf("stop service (it may run until you log out): %w", reach))
		}
		if err := os.Remove(m.file()); err != nil {
			errs = append(errs, fmt.Errorf("remove service file: %w", err))
		} else {
			r.step(&o, Step{What: "service file", Path: m.file(), Outcome: Removed})
			if reach == nil {
				if err := m.forget(ctx); err != nil {
					errs = append(errs, err)
				}
			}
		}
	} else {
		r.step(&o, Step{What: "service file", Path: m.file(), Outcome: Missing, Note: "not installed"})
	}
	if o.MemoryDir != "" {
		dir := OpenCodeDir(o.Home, o.XDGConfigHome)
		files, err := UnwireOpenCode(dir, Instructions(o.MemoryDir))
		if err != nil {
			errs = append(errs, err)
		}
		for _, f := range files {
			r.step(&o, Step{What: "opencode", Path: f, Outcome: Updated, Note: "memoryd instructions removed"})
		}
		if len(files) == 0 && err == nil {
			r.step(&o, Step{What: "opencode", Path: dir, Outcome: Unchanged, Note: "no memoryd instructions"})
		}
	}
	if err := unwireAgents(&o, &r); err != nil {
		errs = append(errs, err)
	}
	if o.MemoryDir != "" {
		r.step(&o, Step{What: "memory folder", Path: o.MemoryDir, Outcome: Kept, Note: "memory files and git history are never touched"})
	}
	if o.ConfigPath != "" {
		r.step(&o, Step{What: "config file", Path: o.ConfigPath, Outcome: Kept, Note: "delete it yourself if you no longer need it"})
	}
	if len(errs) > 0 {
		return r, fmt.Errorf("uninstall: %w", errors.Join(errs...))
	}
	return r, nil
}

// ensureProtocol is protocol.Ensure as a report step.
func ensureProtocol(o *Options, r *Report) error {
	written, err := protocol.Ensure(o.MemoryDir)
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	r.step(o, Step{What: "protocol", Path: filepath.Join(o.MemoryDir, protocol.File), Outcome: outcome(written, Created)})
	return nil
}
