package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/state"
)

// TestSyncOffWithUpstreamSaidAndInstallSync: a notes repository with an
// upstream and sync off — install (not in a terminal) says so and changes
// nothing, status and doctor say so with the way to turn it on; install
// --sync writes sync.enabled: true into the config file, which then reads
// it; --no-sync writes it back off.
func TestSyncOffWithUpstreamSaidAndInstallSync(t *testing.T) {
	_, a, _ := syncWorlds(t)
	cfg := filepath.Join(a.home, ".config", "memoryd", "config.yaml")
	out, code := a.runCmd(nil, "install", "--no-service", "--memory-dir", a.mem)
	if code != 0 || !strings.Contains(out, "has an upstream (origin/main); sync is off") || !strings.Contains(out, "memoryd install --sync") {
		t.Fatalf("install (%d):\n%s", code, out)
	}
	if data, _ := os.ReadFile(cfg); strings.Contains(string(data), "sync") {
		t.Fatalf("install without --sync wrote sync:\n%s", data)
	}
	out, _ = a.runCmd(nil, "status")
	if !strings.Contains(out, "sync           off; the notes repository has an upstream (origin/main)") || !strings.Contains(out, "memoryd install --sync") {
		t.Fatalf("status:\n%s", out)
	}
	stdout, _, _ := a.runCmd2(nil, "status", "--json")
	if r := statusJSON(t, stdout); r.SyncOff != "origin/main" {
		t.Fatalf("status --json syncOff = %q:\n%s", r.SyncOff, stdout)
	}
	out, _ = a.runCmd(nil, "doctor")
	if !strings.Contains(out, "ok       sync: off, though the notes repository has an upstream (origin/main)") {
		t.Fatalf("doctor:\n%s", out)
	}

	out, code = a.runCmd(nil, "install", "--no-service", "--memory-dir", a.mem, "--sync")
	if code != 0 || !strings.Contains(out, "updated   sync") || !strings.Contains(out, "memoryd restart") {
		t.Fatalf("install --sync (%d):\n%s", code, out)
	}
	stdout, _, _ = a.runCmd2(nil, "config", "--json")
	if !strings.Contains(stdout, `"key": "sync.enabled",
      "value": true,
      "origin": "file"`) {
		t.Fatalf("config after install --sync:\n%s", stdout)
	}
	out, _ = a.runCmd(nil, "status")
	if strings.Contains(out, "sync           off") {
		t.Fatalf("status still says sync is off:\n%s", out)
	}
	if out, code = a.runCmd(nil, "install", "--no-service", "--memory-dir", a.mem, "--sync"); code != 0 || !strings.Contains(out, "unchanged sync") {
		t.Fatalf("install --sync again (%d):\n%s", code, out)
	}
	if out, code = a.runCmd(nil, "install", "--no-service", "--memory-dir", a.mem, "--no-sync"); code != 0 || !strings.Contains(out, "updated   sync") {
		t.Fatalf("install --no-sync (%d):\n%s", code, out)
	}
	if data, _ := os.ReadFile(cfg); !strings.Contains(string(data), "sync:\n  enabled: false\n") {
		t.Fatalf("config after --no-sync:\n%s", data)
	}
	if out, code = a.runCmd(nil, "install", "--sync", "--no-sync"); code != 2 {
		t.Fatalf("install --sync --no-sync (%d):\n%s", code, out)
	}
}

// TestSyncAuthRefusedForADayIsADoctorProblem: the remote is a real HTTP
// git remote on 127.0.0.1 that answers every request 401 (credentials
// required; git may not prompt, so it fails as with wrong or missing
// credentials). The daemon goes on committing and status says offline;
// doctor notes it. A day of refusals is simulated by backdating the
// offline-since the last daemon published: the next daemon keeps it (a
// refusal outlives restarts), and doctor then reports a problem with the
// fix.
func TestSyncAuthRefusedForADayIsADoctorProblem(t *testing.T) {
	_, a, _ := syncWorlds(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="notes"`)
		http.Error(w, "credentials required", http.StatusUnauthorized)
	}))
	defer srv.Close()
	a.git(a.notes, "remote", "set-url", "origin", srv.URL+"/notes.git")
	p := a.startDaemon(syncEnv...)
	a.write("user-shell.md", memoryFile("user", "shell", "the user's shell", "zsh"))
	waitFor(t, "offline, refused, with the commit kept", func() bool {
		st := a.status().Sync
		return !st.OfflineSince.IsZero() && st.Ahead >= 1 && strings.Contains(st.Problem, "could not read Username")
	})
	out, code := a.runCmd(syncEnv, "doctor")
	if strings.Contains(out, "PROBLEM  sync") || !strings.Contains(out, "ok       sync: with origin/main; offline since") {
		t.Fatalf("doctor after a moment of refusals (%d):\n%s", code, out)
	}
	p.stop(t)

	// A day ago.
	day := time.Now().Add(-25 * time.Hour).UTC().Truncate(time.Second)
	var st map[string]any
	raw, err := os.ReadFile(filepath.Join(a.stateDir(), state.StatusFile))
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err != nil || dec.Decode(&st) != nil {
		t.Fatalf("status.json: %v\n%s", err, raw)
	}
	st["sync"].(map[string]any)["offlineSince"] = day.Format(time.RFC3339)
	data, _ := json.Marshal(st)
	if err := os.WriteFile(filepath.Join(a.stateDir(), state.StatusFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	a.startDaemon(syncEnv...)
	t.Cleanup(func() {
		if t.Failed() {
			raw, _ := os.ReadFile(filepath.Join(a.stateDir(), state.StatusFile))
			t.Logf("status.json: %s", raw)
		}
	})
	waitFor(t, "the next daemon keeps offline-since", func() bool {
		st := a.status().Sync
		return st.OfflineSince.Equal(day) && st.Problem != ""
	})
	out, code = a.runCmd(syncEnv, "doctor")
	if code == 0 || !strings.Contains(out, "PROBLEM  sync: origin/main has refused this machine's credentials since") ||
		!strings.Contains(out, "fix: run git -C ") || !strings.Contains(out, "fetch in a terminal") {
		t.Fatalf("doctor after a day of refusals (%d):\n%s", code, out)
	}
}
