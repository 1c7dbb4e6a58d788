//go:build unix

package gitstore

import (
	"os/exec"
	"syscall"
)

// inGroup makes cmd the leader of a process group of its own, so that the
// helpers git starts (git remote-http, ssh, a credential helper, an
// upload-pack wrapper) can be signalled with it: signalling git alone
// leaves a helper blocked on a silent remote running for good.
func inGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// interruptGroup sends SIGINT to cmd's process group: git removes its lock
// files on it, and the helpers end.
func interruptGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
}

// killGroup kills what is left of the process group led by pid, once its
// leader was waited for (a helper that ignored SIGINT). The group's id is
// not reused while a member lives; ESRCH means none does.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
