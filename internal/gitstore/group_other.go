//go:build !unix

package gitstore

import (
	"os"
	"os/exec"
)

// inGroup does nothing where there are no process groups.
func inGroup(cmd *exec.Cmd) {}

// interruptGroup interrupts git itself, or kills it where it cannot be
// interrupted (Windows).
func interruptGroup(cmd *exec.Cmd) error {
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}

// killGroup does nothing where there are no process groups.
func killGroup(pid int) {}
