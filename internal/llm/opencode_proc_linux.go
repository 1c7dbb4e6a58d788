package llm

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts opencode in its own process group (terminate signals
// the group) and has the kernel send it SIGTERM if the daemon dies without
// stopping it. Pdeathsig fires when the thread that started the process
// exits; Go does not end threads of goroutines that are not locked to them,
// so in practice that is the daemon's death.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
