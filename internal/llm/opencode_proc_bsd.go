//go:build unix && !linux

package llm

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts opencode in its own process group (terminate signals
// the group). Unlike Linux there is no parent-death signal: if the daemon is
// killed, the server lives on until it is killed too.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
