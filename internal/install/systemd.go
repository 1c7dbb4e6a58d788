package install

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// UnitName is the systemd user unit install writes.
const UnitName = "memoryd.service"

// RenderSystemdUnit returns the systemd user unit that runs
// `<Binary> run --config <ConfigPath>` with PATH=<Path>. It is a pure
// function of spec: the same spec gives the same bytes, which is how install
// sees that nothing changed.
//
// Choices a user unit needs: WantedBy=default.target (the user manager never
// reaches the stock multi-user.target, so such a unit would never start);
// no After= or network dependencies (a user unit can not order itself after
// system units, and the daemon retries what needs the network);
// Restart=on-failure with RestartSec=5, bounded by a start limit so that a
// broken config file does not restart forever; output to the journal.
// Values are quoted and escaped for systemd ('%' specifiers, '$' expansion,
// quotes, backslashes, control characters), so any path is safe.
func RenderSystemdUnit(spec Spec) []byte {
	var b strings.Builder
	b.WriteString("# Written by `memoryd install`; it is rewritten on the next install.\n")
	b.WriteString("# Logs: journalctl --user -u memoryd -f\n")
	b.WriteString("[Unit]\n")
	b.WriteString("Description=memoryd: keeps the agent memory folder indexed, committed and compact\n")
	b.WriteString("StartLimitIntervalSec=300\n")
	b.WriteString("StartLimitBurst=10\n")
	b.WriteString("\n[Service]\n")
	b.WriteString("Type=simple\n")
	fmt.Fprintf(&b, "ExecStart=%s run --config %s\n", systemdWord(spec.Binary), systemdWord(spec.ConfigPath))
	fmt.Fprintf(&b, "Environment=%s\n", systemdQuote("PATH="+spec.Path))
	b.WriteString("Restart=on-failure\n")
	b.WriteString("RestartSec=5\n")
	b.WriteString("TimeoutStopSec=30\n")
	b.WriteString("StandardOutput=journal\n")
	b.WriteString("StandardError=journal\n")
	b.WriteString("\n[Install]\n")
	b.WriteString("WantedBy=default.target\n")
	return []byte(b.String())
}

// systemdWord renders one command-line word: bare when it is plain, else
// quoted. '%' and '$' are doubled either way (specifiers and variables).
func systemdWord(s string) string {
	plain := s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return r <= ' ' || r == '"' || r == '\'' || r == '\\' || r == ';' || r == 0x7f
	})
	if plain {
		return strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
	}
	return systemdQuote(s)
}

// systemdQuote double-quotes s with C-style escapes, as systemd unquotes.
func systemdQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '%':
			b.WriteString("%%")
		case r == '$':
			b.WriteString("$$")
		case r == '\n':
			b.WriteString(`\n`)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// systemd drives `systemctl --user`.
type systemd struct {
	run  runner
	unit string // absolute path of the unit file
}

func newSystemd(o *Options) *systemd {
	return &systemd{run: o.runner(), unit: filepath.Join(configHome(o.Home, o.XDGConfigHome), "systemd", "user", UnitName)}
}

func (s *systemd) platform() string        { return "systemd" }
func (s *systemd) file() string            { return s.unit }
func (s *systemd) render(spec Spec) []byte { return RenderSystemdUnit(spec) }

func (s *systemd) hints() []string {
	return []string{
		"logs: journalctl --user -u memoryd -f",
		"to keep memoryd running after you log out: loginctl enable-linger $USER",
	}
}

func (s *systemd) ctl(ctx context.Context, args ...string) (string, error) {
	return s.run.output(ctx, "systemctl", append([]string{"--user"}, args...)...)
}

// reachable fails with ErrNoUserManager when no systemd user manager
// answers, and with ErrUnitDir when the manager looks for units elsewhere.
func (s *systemd) reachable(ctx context.Context) error {
	env, err := s.ctl(ctx, "show-environment")
	if err != nil {
		var nf *notFoundError
		if errors.As(err, &nf) {
			return fmt.Errorf("%w: systemctl is not on PATH (%s)", ErrNoUserManager, nf.path)
		}
		return fmt.Errorf("%w: %v", ErrNoUserManager, err)
	}
	return s.checkUnitDir(env)
}

// checkUnitDir compares the folder the unit goes to with the one the user
// manager searches: $XDG_CONFIG_HOME/systemd/user in the manager's own
// environment, which is not the shell's. XDG_CONFIG_HOME set only in a
// shell profile would otherwise leave a unit systemd never sees.
func (s *systemd) checkUnitDir(managerEnv string) error {
	var home, xdg string
	for _, line := range strings.Split(managerEnv, "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "HOME":
			home = v
		case "XDG_CONFIG_HOME":
			xdg = v
		}
	}
	if home == "" && !filepath.IsAbs(xdg) {
		return nil // nothing to compare with
	}
	searched := filepath.Join(configHome(home, xdg), "systemd", "user")
	if dir := filepath.Dir(s.unit); searched != dir {
		return fmt.Errorf("%w: the systemd user manager looks for units in %s, but install would write %s; "+
			"XDG_CONFIG_HOME differs between this shell and the manager: unset it here, or set it for the manager "+
			"in ~/.config/environment.d/ and log in again", ErrUnitDir, searched, dir)
	}
	return nil
}

// activate makes the written unit take effect: reload when it changed,
// enable when it is not, start when it is not running, restart a running
// one whose unit changed. It returns what it did, "" when nothing.
func (s *systemd) activate(ctx context.Context, changed bool) (string, error) {
	var did []string
	if changed {
		if _, err := s.ctl(ctx, "daemon-reload"); err != nil {
			return "", err
		}
	}
	if state, _ := s.ctl(ctx, "is-enabled", UnitName); state != "enabled" {
		if _, err := s.ctl(ctx, "enable", UnitName); err != nil {
			return "", err
		}
		did = append(did, "enabled")
	}
	active, _ := s.ctl(ctx, "is-active", UnitName)
	switch {
	case !runningState(active):
		if _, err := s.ctl(ctx, "start", UnitName); err != nil {
			return "", err
		}
		did = append(did, "started")
	case changed:
		if _, err := s.ctl(ctx, "restart", UnitName); err != nil {
			return "", err
		}
		did = append(did, "restarted")
	}
	return strings.Join(did, " and "), nil
}

// deactivate stops and disables the unit before its file goes.
func (s *systemd) deactivate(ctx context.Context) error {
	_, err := s.ctl(ctx, "disable", "--now", UnitName)
	return err
}

// forget makes the manager drop a removed unit file.
func (s *systemd) forget(ctx context.Context) error {
	_, err := s.ctl(ctx, "daemon-reload")
	return err
}

func (s *systemd) start(ctx context.Context) error {
	_, err := s.ctl(ctx, "start", UnitName)
	return err
}

func (s *systemd) stop(ctx context.Context) error {
	_, err := s.ctl(ctx, "stop", UnitName)
	return err
}

func (s *systemd) restart(ctx context.Context) error {
	_, err := s.ctl(ctx, "restart", UnitName)
	return err
}

// state reports enabled/active as systemctl prints them. is-enabled and
// is-active exit non-zero for "disabled" and "inactive", so only their output
// counts; an unreachable manager is an error.
func (s *systemd) state(ctx context.Context) (loaded bool, running bool, detail string, err error) {
	if err := s.reachable(ctx); err != nil {
		return false, false, "", err
	}
	enabled, _ := s.ctl(ctx, "is-enabled", UnitName)
	active, _ := s.ctl(ctx, "is-active", UnitName)
	return enabled == "enabled", runningState(active), fmt.Sprintf("%s, %s", orUnknown(enabled), orUnknown(active)), nil
}

func runningState(active string) bool {
	return active == "active" || active == "activating" || active == "reloading"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
