//go:build unix

package llm

import (
	"os/exec"
	"syscall"
)

// terminate sends SIGTERM to the process group of cmd, so that anything
// opencode started ends with it.
func terminate(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
}

// killGroup sends SIGKILL to the process group of cmd: a short-lived
// opencode command past its time-out, and anything it started.
func killGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
