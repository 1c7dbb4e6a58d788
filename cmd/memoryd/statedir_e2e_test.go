package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/state"
)

// The state folder deleted under a running daemon (rm -rf of
// ~/.local/state/memoryd) must not undo the single instance: status still
// finds the daemon, a second `memoryd run` is refused naming it, and the
// daemon recreates its state (lock, status.json, log) and keeps committing.
func TestRunSurvivesStateFolderDeleted(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	pid := p.cmd.Process.Pid
	sd, err := state.Dir(filepath.Join(w.home, ".local", "state"), w.mem)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(sd); err != nil {
		t.Fatal(err)
	}

	waitFor(t, "status to find the daemon after its state folder was deleted", func() bool {
		out, code := w.runCmd(nil, "status")
		return code == 0 && strings.Contains(out, fmt.Sprintf("daemon         running (pid %d,", pid))
	})

	// A second daemon is refused at once and names the first. Should it
	// start instead, it is not waited for forever: the cleanup kills it.
	second := w.start(nil, "run")
	select {
	case <-second.done:
	case <-time.After(patience):
		t.Fatalf("a second memoryd run started beside the first:\n%s", second.output())
	}
	out := second.output()
	if second.err == nil || !strings.Contains(out, "already running") || !strings.Contains(out, fmt.Sprintf("pid %d", pid)) {
		t.Fatalf("second memoryd run: %v, want a refusal naming pid %d:\n%s", second.err, pid, out)
	}

	// The daemon still commits, and its state is back where it belongs.
	w.write("user-pet.md", memoryFile("user", "pet", "Has a cat named Miso", "Miso."))
	waitFor(t, "the edit made after the deletion to be committed", func() bool {
		return strings.Contains(w.show("memory/user-pet.md"), "Miso.")
	})
	waitFor(t, "status.json to name the daemon again", func() bool {
		st := w.status()
		return st.Running && st.PID == pid && st.Index.Files == 1
	})
	for _, name := range []string{state.DaemonLock, state.LogFile} {
		if _, err := os.Stat(filepath.Join(sd, name)); err != nil {
			t.Errorf("not recreated in the state folder: %v", err)
		}
	}
	waitFor(t, "memoryd logs to show the commit made after the deletion", func() bool {
		logs, code := w.runCmd(nil, "logs")
		return code == 0 && strings.Contains(logs, "state folder was deleted") && strings.Contains(logs, "user-pet.md (")
	})
	p.stop(t)
	w.fsck()
}
