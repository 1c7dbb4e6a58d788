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

// logPath is the log file `memoryd run` keeps in the world's state folder.
func (w *world) logPath() string {
	w.t.Helper()
	sd, err := state.Dir(filepath.Join(w.home, ".local", "state"), w.mem)
	if err != nil {
		w.t.Fatal(err)
	}
	return filepath.Join(sd, state.LogFile)
}

// `memoryd run` writes everything it logs to the state folder's log file
// too, and `memoryd logs -n N` prints its last N lines.
func TestLogsFromStateFolderFile(t *testing.T) {
	w := newWorld(t)
	info := []string{"MEMORY_LOG_LEVEL=info"}
	p := w.startDaemon(info...)
	w.write("user-tea.md", memoryFile("user", "tea", "Drinks green tea", "Green tea, no sugar."))
	waitFor(t, "the commit", func() bool { return strings.Contains(w.subjects()[0], "user-tea.md") })
	waitFor(t, "the commit's log line", func() bool {
		data, _ := os.ReadFile(w.logPath())
		return strings.Contains(string(data), "committed 2 files: memory: update MEMORY.md, user-tea.md (")
	})
	p.stop(t)

	data, err := os.ReadFile(w.logPath())
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != p.output() {
		t.Errorf("the log file differs from what the daemon printed:\nfile:\n%s\nstderr:\n%s", data, p.output())
	}
	for _, want := range []string{`msg="memoryd started"`, `msg="index rebuilt: 1 memory, `, `msg="memoryd stopped"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("log lacks %s:\n%s", want, data)
		}
	}
	if fi, _ := os.Stat(w.logPath()); fi.Mode().Perm() != 0o600 {
		t.Errorf("log file mode %v, want 0600", fi.Mode().Perm())
	}

	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	out, stderr, code := w.runCmd2(nil, "logs", "-n", "3")
	if code != 0 {
		t.Fatalf("logs: exit %d\n%s", code, stderr)
	}
	if want := strings.Join(lines[len(lines)-3:], "") + "\n"; out != want {
		t.Errorf("logs -n 3:\n%s\nwant:\n%s", out, want)
	}
	if out, _, _ := w.runCmd2(nil, "logs"); out != string(data) {
		t.Errorf("logs (default 50, fewer in the file) printed:\n%s", out)
	}
	if _, _, code := w.runCmd2(nil, "logs", "-n", "-1"); code != 2 {
		t.Errorf("logs -n -1: exit %d, want 2", code)
	}
}

// `memoryd logs -f` shows the daemon at work as it happens and stops
// cleanly on a signal.
func TestLogsFollow(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon("MEMORY_LOG_LEVEL=info")
	f := w.start(nil, "logs", "-f", "-n", "0")
	// logs -f may start following a moment after it starts: a change made
	// before that is (rightly) not shown, so make one every second until
	// one is.
	n, last := 0, time.Time{}
	waitFor(t, "a rebuild and a commit in logs -f", func() bool {
		out := f.output()
		if strings.Contains(out, "index rebuilt: ") && strings.Contains(out, "committed ") {
			return true
		}
		if time.Since(last) > time.Second {
			n, last = n+1, time.Now()
			w.write(fmt.Sprintf("user-tea-%d.md", n), memoryFile("user", fmt.Sprintf("tea-%d", n), "Drinks green tea", fmt.Sprintf("Green tea, cup %d.", n)))
		}
		return false
	})
	if strings.Contains(f.output(), "memoryd started") {
		t.Errorf("-n 0 printed old lines:\n%s", f.output())
	}
	f.stop(t)
	p.stop(t)
}

// With no daemon ever run, logs says so and how to start one.
func TestLogsBeforeAnyDaemon(t *testing.T) {
	w := newWorld(t)
	_, stderr, code := w.runCmd2(nil, "logs")
	mem, _ := state.RealPath(w.mem)
	if code != 1 || !strings.Contains(stderr, "no log yet") || !strings.Contains(stderr, "memoryd run --memory-dir "+mem) {
		t.Errorf("logs with no daemon: exit %d\n%s", code, stderr)
	}
}

// With the systemd unit installed and the user manager answering, logs
// reads the journal.
func TestLogsFromJournalForInstalledService(t *testing.T) {
	w := newWorld(t)
	extra := fakeServiceTools(t, w, true, "yes")
	installUnit(t, w)
	journalctl := "#!/bin/sh\necho \"journalctl $*\"\n"
	if err := os.WriteFile(filepath.Join(w.home, "fakebin", "journalctl"), []byte(journalctl), 0o755); err != nil {
		t.Fatal(err)
	}
	out, code := w.runCmd(extra, "logs", "-n", "7")
	if want := "journalctl --user -u memoryd.service -n 7 --no-pager\n"; code != 0 || out != want {
		t.Errorf("logs: exit %d, %q, want %q", code, out, want)
	}
	out, code = w.runCmd(extra, "logs", "-f")
	if want := "journalctl --user -u memoryd.service -n 50 --no-pager -f\n"; code != 0 || out != want {
		t.Errorf("logs -f: exit %d, %q, want %q", code, out, want)
	}
}
