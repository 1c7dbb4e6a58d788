package install

import (
	"bytes"
	"context"
	"fmt"
	"os"
)

// manager is one platform's service manager: systemd --user or launchd.
type manager interface {
	platform() string                                           // "systemd" or "launchd"
	file() string                                               // absolute path of the unit or plist
	render(Spec) []byte                                         // the file's bytes
	reachable(ctx context.Context) error                        // ErrNoUserManager when it can not be used
	activate(ctx context.Context, changed bool) (string, error) // make the written file take effect; what it did
	deactivate(ctx context.Context) error                       // stop, and keep it from starting again
	forget(ctx context.Context) error                           // after the file is removed
	start(ctx context.Context) error
	stop(ctx context.Context) error
	restart(ctx context.Context) error
	state(ctx context.Context) (enabled, running bool, detail string, err error)
	hints() []string // where the logs are, and the like
}

func (o *Options) manager() (manager, error) {
	switch o.goos() {
	case "linux":
		return newSystemd(o), nil
	case "darwin":
		return newLaunchd(o), nil
	}
	return nil, fmt.Errorf("install: no per-user service support on %s (run `memoryd run` yourself)", o.goos())
}

// ServiceFile returns the path of the unit or plist Install writes for o.
func ServiceFile(o Options) (string, error) {
	m, err := o.manager()
	if err != nil {
		return "", err
	}
	return m.file(), nil
}

// ServiceStatus is what the service manager says about memoryd.
type ServiceStatus struct {
	Platform  string // "systemd" or "launchd"
	File      string // the unit or plist
	Installed bool   // File exists
	// Current reports whether File holds exactly what Install would write for
	// the Options given (false after the binary or PATH moved: re-run
	// install). Only set when Options.Binary is set.
	Current bool
	Enabled bool   // systemd: enabled; launchd: loaded
	Running bool   // a process is running (or starting)
	Detail  string // the manager's own words, e.g. "enabled, active"
}

// Status asks the service manager about memoryd. It needs Home,
// XDGConfigHome, Path and GOOS (and Binary, ConfigPath for Current). When
// the manager can not be used it returns what it knows (the file) and an
// error wrapping ErrNoUserManager or ErrUnitDir.
func Status(ctx context.Context, o Options) (ServiceStatus, error) {
	m, err := o.manager()
	if err != nil {
		return ServiceStatus{}, err
	}
	st := ServiceStatus{Platform: m.platform(), File: m.file()}
	data, err := os.ReadFile(st.File)
	st.Installed = err == nil
	if st.Installed && o.Binary != "" {
		st.Current = bytes.Equal(data, m.render(o.Spec()))
	}
	st.Enabled, st.Running, st.Detail, err = m.state(ctx)
	if err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	return st, nil
}

// Start starts the installed service (launchd: loads it if needed).
func Start(ctx context.Context, o Options) error { return control(ctx, o, "start", manager.start) }

// Stop stops the service until the next login or Start. On launchd that
// unloads the agent, since KeepAlive would restart a killed process.
func Stop(ctx context.Context, o Options) error { return control(ctx, o, "stop", manager.stop) }

// Restart restarts the service, which makes a changed binary take effect.
func Restart(ctx context.Context, o Options) error {
	return control(ctx, o, "restart", manager.restart)
}

func control(ctx context.Context, o Options, verb string, f func(manager, context.Context) error) error {
	m, err := o.manager()
	if err != nil {
		return err
	}
	if _, err := os.Lstat(m.file()); err != nil {
		return fmt.Errorf("%s: %w", verb, ErrNotInstalled)
	}
	if err := m.reachable(ctx); err != nil {
		return fmt.Errorf("%s: %w", verb, withAdvice(err, &o, m))
	}
	if err := f(m, ctx); err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	return nil
}

// toolHints warns about tools missing from the PATH the service gets.
func toolHints(o *Options) []string {
	path := CleanPath(o.Path)
	var hints []string
	if _, err := LookPath("git", path); err != nil {
		hints = append(hints, "git is not on the service's PATH: commits, compaction and undo stay off. Re-run install from a shell where `git` works.")
	}
	if _, err := LookPath("opencode", path); err != nil && o.OpenCode {
		hints = append(hints, "opencode is not on the service's PATH: the opencode LLM provider will not be found. Re-run install from a shell where `opencode` works.")
	}
	return hints
}
