package install

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/memoryd/memoryd/internal/state"
)

// Where no memoryd service is installed — no per-user service manager (a
// container, WSL without systemd, ssh without a user bus), or simply no
// `memoryd install` — start, stop and restart act on a daemon of memoryd's
// own: `memoryd run` in the background, in a session of its own, its log
// in the state folder (`memoryd logs`), found and stopped through the
// memory folder's single-instance lock, whose holder writes its pid.

// Waits of the background daemon's start and stop. A daemon that stops
// commits what is pending first and may wait up to 10 s for a busy
// repository.
const (
	backgroundStartWait = 15 * time.Second
	backgroundStopWait  = 30 * time.Second
	backgroundPoll      = 50 * time.Millisecond
)

// DetachedEnv tells a `memoryd run` that `memoryd start` started it in the
// background: once its log file is open it writes nothing more to its
// standard error (startErrFile).
const DetachedEnv = "MEMORYD_DETACHED"

// startErrFile, in the state folder, holds what the last background start
// wrote to standard error before its log was open: a bad config file, say.
const startErrFile = "start.err"

// NoService reports whether err from Start, Stop or Restart means that
// there is no service to control.
func NoService(err error) bool {
	return errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrNoUserManager)
}

// Background is memoryd's own daemon for one memory folder, the service
// manager of the no-service case.
type Background struct {
	Dir      string // the memory folder (real path)
	StateDir string // its state folder, where the lock and the log are
	// Config and MemoryDir are the --config and --memory-dir the daemon
	// is started with ("" none), made absolute.
	Config, MemoryDir string
	Out               io.Writer // what it did, for a person
}

// Control does verb (start, stop or restart) to the background daemon;
// serviceErr is why the service could not (NoService).
func (b Background) Control(verb string, serviceErr error) error {
	why := "no service is installed"
	if errors.Is(serviceErr, ErrNoUserManager) {
		why = "no per-user service manager answers here"
	}
	switch verb {
	case "start":
		return b.Start(why)
	case "stop":
		return b.Stop()
	default:
		if err := b.Stop(); err != nil {
			return err
		}
		return b.Start(why)
	}
}

// Start runs `memoryd run` in the background for the folder, with the same
// --config and --memory-dir, and waits until it holds the folder's lock;
// why says why there is no service. A daemon already running is left as it
// is.
func (b Background) Start(why string) error {
	if pid := state.InstancePID(b.StateDir, b.Dir); pid > 0 || state.InstanceHeld(b.StateDir, b.Dir) {
		fmt.Fprintf(b.Out, "memoryd is already running for %s (pid %d)\n", b.Dir, pid)
		return nil
	}
	cmd, errPath, err := b.spawn()
	if err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(backgroundStartWait)
	for {
		if state.InstanceHeld(b.StateDir, b.Dir) {
			fmt.Fprintf(b.Out, "memoryd started in the background for %s (pid %d; %s)\n", b.Dir, cmd.Process.Pid, why)
			fmt.Fprintf(b.Out, "  its log: memoryd logs    stop it: memoryd stop    run it as a service: memoryd install\n")
			return nil
		}
		select {
		case err := <-exited:
			msg, _ := os.ReadFile(errPath)
			return fmt.Errorf("memoryd run exited at once (%v): %s", err, strings.TrimSpace(lastLines(string(msg), 5)))
		case <-time.After(backgroundPoll):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("memoryd run (pid %d) did not take the memory folder's lock within %s; see memoryd logs", cmd.Process.Pid, backgroundStartWait)
		}
	}
}

// spawn starts `memoryd run` in a session of its own, its standard error
// in the state folder's startErrFile (whose path it returns).
func (b Background) spawn() (*exec.Cmd, string, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, "", fmt.Errorf("find the memoryd binary: %w", err)
	}
	args := []string{"run"}
	for _, f := range []struct{ name, v string }{{"config", b.Config}, {"memory-dir", b.MemoryDir}} {
		if f.v != "" {
			abs, err := filepath.Abs(f.v)
			if err != nil {
				return nil, "", err
			}
			args = append(args, "--"+f.name, abs)
		}
	}
	if err := state.Ensure(b.StateDir); err != nil {
		return nil, "", err
	}
	errPath := filepath.Join(b.StateDir, startErrFile)
	errFile, err := os.OpenFile(errPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, "", err
	}
	defer errFile.Close() // the child has its own copy
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), DetachedEnv+"=1")
	cmd.Dir = "/" // holds no folder of the caller's
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, errFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal: the shell's hang-up does not reach it
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("start memoryd run: %w", err)
	}
	return cmd, errPath, nil
}

// Stop stops the daemon that serves the folder, whoever started it:
// SIGTERM, then it commits what is pending and exits.
func (b Background) Stop() error {
	if !state.InstanceHeld(b.StateDir, b.Dir) {
		fmt.Fprintf(b.Out, "memoryd is not running for %s\n", b.Dir)
		return nil
	}
	pid := state.InstancePID(b.StateDir, b.Dir)
	if pid <= 0 {
		return fmt.Errorf("a memoryd runs for %s but its pid is unknown (state folder %s): stop it where it was started", b.Dir, b.StateDir)
	}
	if err := b.stopProcess(pid); err != nil {
		return err
	}
	fmt.Fprintf(b.Out, "memoryd stopped (pid %d)\n", pid)
	return nil
}

// StopHandRun is uninstall's last step: a daemon still serving the folder
// once the service is gone — one started by hand or by `memoryd start` —
// is stopped too, since nothing of memoryd is meant to run after
// uninstall.
func (b Background) StopHandRun() error {
	pid := state.InstancePID(b.StateDir, b.Dir)
	if pid <= 0 {
		return nil
	}
	if err := b.stopProcess(pid); err != nil {
		return err
	}
	fmt.Fprintf(b.Out, "stopped   memoryd run (pid %d), which served %s\n", pid, b.Dir)
	return nil
}

// stopProcess sends pid SIGTERM and waits until the folder's lock is free.
func (b Background) stopProcess(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop memoryd (pid %d): %w", pid, err)
	}
	deadline := time.Now().Add(backgroundStopWait)
	for state.InstanceHeld(b.StateDir, b.Dir) {
		if time.Now().After(deadline) {
			return fmt.Errorf("memoryd (pid %d) is still running %s after SIGTERM; see memoryd logs, or end it with: kill -9 %d", pid, backgroundStopWait, pid)
		}
		time.Sleep(backgroundPoll)
	}
	return nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
