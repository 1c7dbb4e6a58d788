package install

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Label is the launchd label of the agent install writes, and the base name
// of its plist in ~/Library/LaunchAgents.
const Label = "dev.memoryd"

// LogFile is the name of the log file in Spec.LogDir that the launchd agent
// writes its output and errors to.
const LogFile = "memoryd.log"

// LaunchdOpenFiles is the open-file limit (soft and hard NumberOfFiles)
// the launchd agent runs with. On macOS fsnotify watches with kqueue, which
// holds one open file for every watched folder and every entry in it (the
// memory folder's files, the transcript folders' sessions), and launchd
// starts agents with a soft limit of 256. Both limits are set so that the
// soft one can never exceed the hard one, and 8192 stays under macOS's
// per-process ceiling (kern.maxfilesperproc, 10240 or more), above which
// setrlimit fails.
const LaunchdOpenFiles = 8192

// RenderLaunchdPlist returns the launchd agent that runs
// `<Binary> run --config <ConfigPath>` with PATH=<Path>, started at login
// (RunAtLoad) and restarted when it exits with a failure (KeepAlive with
// SuccessfulExit=false, like systemd's Restart=on-failure), with
// LaunchdOpenFiles open files allowed; stdout and stderr go to
// <LogDir>/memoryd.log. It is a pure function of spec.
func RenderLaunchdPlist(spec Spec) []byte {
	s := func(v string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(v)) // writes to a strings.Builder: cannot fail
		return "<string>" + b.String() + "</string>"
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by "memoryd install"; it is rewritten on the next install. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	` + s(Label) + `
	<key>ProgramArguments</key>
	<array>
		` + s(spec.Binary) + `
		<string>run</string>
		<string>--config</string>
		` + s(spec.ConfigPath) + `
	</array>
	<key>EnvironmentVariables</key>
	<dict>
		<key>PATH</key>
		` + s(spec.Path) + `
	</dict>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>5</integer>
	<key>SoftResourceLimits</key>
	<dict>
		<key>NumberOfFiles</key>
		<integer>` + strconv.Itoa(LaunchdOpenFiles) + `</integer>
	</dict>
	<key>HardResourceLimits</key>
	<dict>
		<key>NumberOfFiles</key>
		<integer>` + strconv.Itoa(LaunchdOpenFiles) + `</integer>
	</dict>
	<key>StandardOutPath</key>
	` + s(filepath.Join(spec.LogDir, LogFile)) + `
	<key>StandardErrorPath</key>
	` + s(filepath.Join(spec.LogDir, LogFile)) + `
</dict>
</plist>
`)
	return []byte(b.String())
}

// launchd drives launchctl in the user's GUI domain.
type launchd struct {
	run    runner
	plist  string
	logDir string
	domain string // "gui/<uid>"
}

func newLaunchd(o *Options) *launchd {
	return &launchd{
		run:    o.runner(),
		plist:  filepath.Join(o.Home, "Library", "LaunchAgents", Label+".plist"),
		logDir: launchdLogDir(o.Home),
		domain: "gui/" + strconv.Itoa(os.Getuid()),
	}
}

func launchdLogDir(home string) string { return filepath.Join(home, "Library", "Logs", "memoryd") }

func (l *launchd) platform() string        { return "launchd" }
func (l *launchd) file() string            { return l.plist }
func (l *launchd) render(spec Spec) []byte { return RenderLaunchdPlist(spec) }
func (l *launchd) target() string          { return l.domain + "/" + Label }

func (l *launchd) hints() []string {
	return []string{"logs: tail -f " + filepath.Join(l.logDir, LogFile)}
}

func (l *launchd) ctl(ctx context.Context, args ...string) (string, error) {
	return l.run.output(ctx, "launchctl", args...)
}

// reachable fails with ErrNoUserManager when the user's GUI domain does not
// exist (for example over ssh with nobody logged in at the screen).
func (l *launchd) reachable(ctx context.Context) error {
	if _, err := l.ctl(ctx, "print", l.domain); err != nil {
		var nf *notFoundError
		if errors.As(err, &nf) {
			return fmt.Errorf("%w: launchctl is not on PATH (%s)", ErrNoUserManager, nf.path)
		}
		return fmt.Errorf("%w: no launchd session for %s (log in at the screen once): %v", ErrNoUserManager, l.domain, err)
	}
	return nil
}

func (l *launchd) loaded(ctx context.Context) bool {
	_, err := l.ctl(ctx, "print", l.target())
	return err == nil
}

// activate loads the agent, reloading it when its plist changed; RunAtLoad
// starts it.
func (l *launchd) activate(ctx context.Context, changed bool) (string, error) {
	if err := os.MkdirAll(l.logDir, 0o755); err != nil {
		return "", fmt.Errorf("log folder: %w", err)
	}
	loaded := l.loaded(ctx)
	if loaded && !changed {
		return "", nil
	}
	if loaded {
		if _, err := l.ctl(ctx, "bootout", l.target()); err != nil {
			return "", err
		}
	}
	if err := l.bootstrap(ctx, loaded); err != nil {
		return "", err
	}
	if loaded {
		return "reloaded", nil
	}
	return "loaded and started", nil
}

// bootstrap loads the plist. Right after a bootout launchd may still be
// tearing the old job down and answer "Bootstrap failed: 5: Input/output
// error", so then it tries again a few times.
func (l *launchd) bootstrap(ctx context.Context, afterBootout bool) error {
	tries := 1
	if afterBootout {
		tries = 5
	}
	var err error
	for i := 0; i < tries; i++ {
		if _, err = l.ctl(ctx, "bootstrap", l.domain, l.plist); err == nil || i == tries-1 {
			return err
		}
		t := time.NewTimer(300 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
	return err
}

func (l *launchd) deactivate(ctx context.Context) error {
	if !l.loaded(ctx) {
		return nil
	}
	_, err := l.ctl(ctx, "bootout", l.target())
	return err
}

func (l *launchd) forget(context.Context) error { return nil }

func (l *launchd) start(ctx context.Context) error {
	if !l.loaded(ctx) {
		return l.bootstrap(ctx, false)
	}
	_, err := l.ctl(ctx, "kickstart", l.target())
	return err
}

// stop unloads the agent: with KeepAlive, killing the process would only
// restart it. It is loaded again at the next login, or by Start.
func (l *launchd) stop(ctx context.Context) error { return l.deactivate(ctx) }

func (l *launchd) restart(ctx context.Context) error {
	if !l.loaded(ctx) {
		return l.start(ctx)
	}
	_, err := l.ctl(ctx, "kickstart", "-k", l.target())
	return err
}

var launchdPID = regexp.MustCompile(`(?m)^\s*pid = ([0-9]+)`)
var launchdState = regexp.MustCompile(`(?m)^\s*state = (.+)$`)

func (l *launchd) state(ctx context.Context) (loaded bool, running bool, detail string, err error) {
	if err := l.reachable(ctx); err != nil {
		return false, false, "", err
	}
	out, err := l.ctl(ctx, "print", l.target())
	if err != nil {
		return false, false, "not loaded", nil
	}
	detail = "loaded"
	if m := launchdState.FindStringSubmatch(out); m != nil {
		detail = "loaded, " + strings.TrimSpace(m[1])
	}
	return true, launchdPID.MatchString(out), detail, nil
}
