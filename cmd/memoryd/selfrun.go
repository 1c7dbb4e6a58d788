package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/memoryd/memoryd/internal/install"
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
	selfStartWait = 15 * time.Second
	selfStopWait  = 30 * time.Second
	selfPoll      = 50 * time.Millisecond
)

// detachedEnv tells a `memoryd run` that `memoryd start` started it in the
// background: once its log file is open it writes nothing more to its
// standard error (startErrFile).
const detachedEnv = "MEMORYD_DETACHED"

// startErrFile, in the state folder, holds what the last background start
// wrote to standard error before its log was open: a bad config file, say.
const startErrFile = "start.err"

// noService reports whether err from install's Start, Stop or Restart
// means that there is no service to control.
func noService(err error) bool {
	return errors.Is(err, install.ErrNotInstalled) || errors.Is(err, install.ErrNoUserManager)
}

// runControl is start, stop or restart: the service's when one is
// installed and its manager answers, else the background daemon's.
func runControl(ctx context.Context, a *app, verb string, service func(context.Context, install.Options) error) error {
	e := a.env
	o, err := installOptions(e, a.global, "")
	if err != nil {
		return err
	}
	err = service(ctx, o)
	if err == nil {
		fmt.Fprintf(e.stdout, "memoryd service: %s done\n", verb)
		return nil
	}
	if !noService(err) {
		return err
	}
	f, ferr := openFolder(e, a.global)
	if ferr != nil {
		return fmt.Errorf("%w; and no background daemon can be %s: %w", err, map[string]string{"start": "started", "stop": "stopped", "restart": "restarted"}[verb], ferr)
	}
	why := "no service is installed"
	if errors.Is(err, install.ErrNoUserManager) {
		why = "no per-user service manager answers here"
	}
	switch verb {
	case "start":
		return selfStart(e, a.global, f, why)
	case "stop":
		return selfStop(e, f)
	default:
		if err := selfStop(e, f); err != nil {
			return err
		}
		return selfStart(e, a.global, f, why)
	}
}

// selfStart runs `memoryd run` in the background for f's folder, with the
// same --config and --memory-dir, and waits until it holds the folder's
// lock; why says why there is no service. A daemon already running is
// left as it is.
func selfStart(e env, g globalFlags, f *folder, why string) error {
	if pid := state.InstancePID(f.stateDir, f.dir); pid > 0 || state.InstanceHeld(f.stateDir, f.dir) {
		fmt.Fprintf(e.stdout, "memoryd is already running for %s (pid %d)\n", f.dir, pid)
		return nil
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the memoryd binary: %w", err)
	}
	args := []string{"run"}
	for name, v := range map[string]string{"config": g.config, "memory-dir": g.memoryDir} {
		if v != "" {
			abs, err := filepath.Abs(v)
			if err != nil {
				return err
			}
			args = append(args, "--"+name, abs)
		}
	}
	if err := state.Ensure(f.stateDir); err != nil {
		return err
	}
	errPath := filepath.Join(f.stateDir, startErrFile)
	errFile, err := os.OpenFile(errPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer errFile.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), detachedEnv+"=1")
	cmd.Dir = "/" // holds no folder of the caller's
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, errFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal: the shell's hang-up does not reach it
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start memoryd run: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(selfStartWait)
	for {
		if state.InstanceHeld(f.stateDir, f.dir) {
			fmt.Fprintf(e.stdout, "memoryd started in the background for %s (pid %d; %s)\n", f.dir, cmd.Process.Pid, why)
			fmt.Fprintf(e.stdout, "  its log: memoryd logs    stop it: memoryd stop    run it as a service: memoryd install\n")
			return nil
		}
		select {
		case err := <-exited:
			msg, _ := os.ReadFile(errPath)
			return fmt.Errorf("memoryd run exited at once (%v): %s", err, strings.TrimSpace(lastLines(string(msg), 5)))
		case <-time.After(selfPoll):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("memoryd run (pid %d) did not take the memory folder's lock within %s; see memoryd logs", cmd.Process.Pid, selfStartWait)
		}
	}
}

// selfStop stops the daemon that serves f's folder, whoever started it:
// SIGTERM, then it commits what is pending and exits.
func selfStop(e env, f *folder) error {
	if !state.InstanceHeld(f.stateDir, f.dir) {
		fmt.Fprintf(e.stdout, "memoryd is not running for %s\n", f.dir)
		return nil
	}
	pid := state.InstancePID(f.stateDir, f.dir)
	if pid <= 0 {
		return fmt.Errorf("a memoryd runs for %s but its pid is unknown (state folder %s): stop it where it was started", f.dir, f.stateDir)
	}
	if err := stopProcess(pid, f); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "memoryd stopped (pid %d)\n", pid)
	return nil
}

// stopProcess sends pid SIGTERM and waits until the folder's lock is free.
func stopProcess(pid int, f *folder) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop memoryd (pid %d): %w", pid, err)
	}
	deadline := time.Now().Add(selfStopWait)
	for state.InstanceHeld(f.stateDir, f.dir) {
		if time.Now().After(deadline) {
			return fmt.Errorf("memoryd (pid %d) is still running %s after SIGTERM; see memoryd logs, or end it with: kill -9 %d", pid, selfStopWait, pid)
		}
		time.Sleep(selfPoll)
	}
	return nil
}

// stopHandRun is uninstall's last step: a daemon still serving the
// folder once the service is gone — one started by hand or by `memoryd
// start` — is stopped too, since nothing of memoryd is meant to run
// after uninstall.
func stopHandRun(w io.Writer, f *folder) error {
	pid := state.InstancePID(f.stateDir, f.dir)
	if pid <= 0 {
		return nil
	}
	if err := stopProcess(pid, f); err != nil {
		return err
	}
	fmt.Fprintf(w, "stopped   memoryd run (pid %d), which served %s\n", pid, f.dir)
	return nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
