package install

import (
	"errors"
	"fmt"
	"github.com/memoryd/memoryd/internal/shell"
	"path/filepath"
	"strings"
)

// Where there is no per-user service manager (WSL without systemd, a
// container, a server where nobody has a login session) install still does
// every other step, and then says how to get the service and how to run
// memoryd meanwhile. Every command in that advice is exact: absolute paths,
// the config file install has just written, quoted for a POSIX shell.

// runCommand is the command the service would run, for a shell.
func (o *Options) runCommand() string {
	return shell.Quote(o.Binary) + " run --config " + shell.Quote(o.ConfigPath)
}

// selfLog is the file the shell-profile advice appends memoryd's output to:
// memoryd.log in $XDG_STATE_HOME/memoryd (~/.local/state/memoryd), or in
// ~/Library/Logs/memoryd on macOS, where the launchd agent logs too.
func (o *Options) selfLog() string {
	if o.goos() == "darwin" {
		return filepath.Join(launchdLogDir(o.Home), LogFile)
	}
	state := o.StateHome
	if !filepath.IsAbs(state) {
		state = filepath.Join(o.Home, ".local", "state")
	}
	return filepath.Join(state, "memoryd", LogFile)
}

// selfStartAdvice, after lead, says how to run memoryd without a service: in the
// foreground, in tmux, or started from a shell profile. A second memoryd on
// the same folder exits at once (the daemon lock), so the profile line may
// run in every shell.
func selfStartAdvice(o *Options, lead string) string {
	run := o.runCommand()
	log := o.selfLog()
	return lead + " start memoryd yourself, in the foreground:\n" +
		"  " + run + "\n" +
		"or in tmux:\n" +
		"  tmux new-session -d -s memoryd " + shell.Quote(run) + "\n" +
		"or from your shell profile (~/.profile), so that it starts with your first shell\n" +
		"(a second copy for the same folder exits at once, so every shell may run it):\n" +
		"  mkdir -p " + shell.Quote(filepath.Dir(log)) + " && (nohup " + run + " >>" + shell.Quote(log) + " 2>&1 &)\n" +
		"Its log: " + shell.Quote(o.Binary) + " logs --config " + shell.Quote(o.ConfigPath)
}

// managerAdvice says how to get a per-user service manager here, and to
// run install again then: installCommand completes the service step, since
// the config file now names the memory folder.
func managerAdvice(o *Options, m manager) string {
	again := shell.Quote(o.Binary) + " install --config " + shell.Quote(o.ConfigPath)
	switch {
	case m.platform() == "launchd":
		return "launchd agents live in your GUI session: log in at the screen once (not only over ssh), then run\n" +
			"  " + again
	case o.WSL:
		return "This looks like WSL, which starts without systemd unless told to. Turn it on:\n" +
			"  1. put these two lines in /etc/wsl.conf (sudo nano /etc/wsl.conf):\n" +
			"       [boot]\n" +
			"       systemd=true\n" +
			"  2. in Windows (PowerShell or cmd), run: wsl --shutdown\n" +
			"  3. open the distribution again and run:\n" +
			"       " + again
	default:
		return "systemd user services need your user's systemd instance: log in through a normal session\n" +
			"(desktop, or ssh with PAM; not su, sudo or a container shell) so that XDG_RUNTIME_DIR is set, then run\n" +
			"  " + again
	}
}

// withAdvice adds what a person can do to an ErrNoUserManager error from
// start, stop or restart.
func withAdvice(err error, o *Options, m manager) error {
	if !errors.Is(err, ErrNoUserManager) {
		return err
	}
	return fmt.Errorf("%w\n%s\nor run it yourself: %s", err, managerAdvice(o, m), o.runCommand())
}

// withoutPrefix drops ErrNoUserManager's own words from err's text, which
// the service step's note then gives without repeating them.
func withoutPrefix(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ErrNoUserManager.Error()+": "); i >= 0 {
		return msg[i+len(ErrNoUserManager.Error())+2:]
	}
	return msg
}
