package main

import (
	"strings"
	"testing"
)

// TestCommandsPrintNoLogLines: sync and doctor, on the built binary with
// the default log level, print their own output and no log records; the
// records are in the log (memoryd logs), and on standard error with
// --verbose.
func TestCommandsPrintNoLogLines(t *testing.T) {
	_, a, _ := syncWorlds(t)
	info := []string{"MEMORY_LOG_LEVEL=info"}
	if out, code := a.runCmd(info, "add", "--type", "user", "--name", "shell", "--description", "Uses fish", "Uses fish as the shell."); code != 0 {
		t.Fatalf("add: exit %d\n%s", code, out)
	}
	out, code := a.runCmd(info, "sync")
	if code != 0 || !strings.Contains(out, "pushed") {
		t.Fatalf("sync: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "level=") {
		t.Errorf("sync prints log lines:\n%s", out)
	}
	out, _ = a.runCmd(info, "doctor")
	if strings.Contains(out, "level=") {
		t.Errorf("doctor prints log lines:\n%s", out)
	}
	out, code = a.runCmd(info, "logs")
	if code != 0 || !strings.Contains(out, "level=INFO") {
		t.Errorf("the commands' log records are not in the log: exit %d\n%s", code, out)
	}
	a.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "vim"))
	a.git(a.notes, "add", "-A")
	a.git(a.notes, "commit", "-q", "-m", "editor")
	_, stderr, code := a.runCmd2(info, "sync", "--verbose")
	if code != 0 || !strings.Contains(stderr, "level=INFO") {
		t.Errorf("sync --verbose: exit %d, want its log records on standard error:\n%s", code, stderr)
	}
}
