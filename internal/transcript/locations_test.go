package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDefaultLocations(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	got := DefaultLocations("/home/u", env(nil))
	want := Locations{OpenCodeData: "/home/u/.local/share/opencode", ClaudeDir: "/home/u/.claude", CodexHome: "/home/u/.codex"}
	if got != want {
		t.Errorf("defaults: %+v", got)
	}
	got = DefaultLocations("/home/u", env(map[string]string{
		"XDG_DATA_HOME": "/data", "OPENCODE_DB": "custom.db", "CLAUDE_CONFIG_DIR": "/cc", "CODEX_HOME": "/cx",
	}))
	want = Locations{OpenCodeData: "/data/opencode", OpenCodeDB: "/data/opencode/custom.db", ClaudeDir: "/cc", CodexHome: "/cx"}
	if got != want {
		t.Errorf("from env: %+v", got)
	}
	got = DefaultLocations("/home/u", env(map[string]string{"XDG_DATA_HOME": "relative", "OPENCODE_DB": "/abs/x.db"}))
	if got.OpenCodeData != "/home/u/.local/share/opencode" || got.OpenCodeDB != "/abs/x.db" {
		t.Errorf("relative XDG_DATA_HOME, absolute OPENCODE_DB: %+v", got)
	}
	if got := DefaultLocations("/home/u", env(map[string]string{"OPENCODE_DB": ":memory:"})); got.OpenCodeDB != "" {
		t.Errorf(":memory: %+v", got)
	}
}

func sourceNames(ss []Source) []string {
	var names []string
	for _, s := range ss {
		names = append(names, s.Name())
	}
	return names
}

func closeAll(ss []Source) {
	for _, s := range ss {
		s.Close()
	}
}

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	loc := DefaultLocations(home, func(string) string { return "" })

	ss, err := Discover(loc, Options{})
	if err != nil || len(ss) != 0 {
		t.Fatalf("empty home: %v %v", sourceNames(ss), err)
	}

	// Legacy storage alone, Claude Code and Codex.
	mkdir := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(filepath.Join(loc.OpenCodeData, "storage", "session", "global"))
	mkdir(filepath.Join(loc.ClaudeDir, "projects"))
	mkdir(filepath.Join(loc.CodexHome, "sessions"))
	ss, err = Discover(loc, Options{})
	if err != nil || !slices.Equal(sourceNames(ss), []string{"opencode-legacy", "claude", "codex"}) {
		t.Fatalf("without a database: %v %v", sourceNames(ss), err)
	}
	closeAll(ss)

	// Databases: the legacy storage is then left alone; a channel database is its own source; a
	// file that is not OpenCode's is reported and skipped.
	openOCFixture(t, filepath.Join(loc.OpenCodeData, "opencode.db"))
	openOCFixture(t, filepath.Join(loc.OpenCodeData, "opencode-dev.db"))
	if err := os.WriteFile(filepath.Join(loc.OpenCodeData, "opencode-broken.db"), []byte("not sqlite"), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err = Discover(loc, Options{})
	defer closeAll(ss)
	if !slices.Equal(sourceNames(ss), []string{"opencode", "opencode-dev", "claude", "codex"}) {
		t.Errorf("with databases: %v", sourceNames(ss))
	}
	if err == nil {
		t.Error("the broken database was not reported")
	}
	if got := ss[0].WatchPaths(); !slices.Equal(got, []string{loc.OpenCodeData}) {
		t.Errorf("opencode watch paths: %v", got)
	}

	// An explicit database is the only one.
	loc.OpenCodeDB = filepath.Join(loc.OpenCodeData, "opencode-dev.db")
	only, err := Discover(loc, Options{})
	defer closeAll(only)
	if err != nil || !slices.Equal(sourceNames(only), []string{"opencode-dev", "claude", "codex"}) {
		t.Errorf("explicit database: %v %v", sourceNames(only), err)
	}
}

func TestInAny(t *testing.T) {
	roots := []string{"/state/memoryd", "", "/x/"}
	for dir, want := range map[string]bool{
		"/state/memoryd": true, "/state/memoryd/llm": true, "/state/memoryd-other": false,
		"/x": true, "/x/y/../z": true, "/": false, "/state": false,
	} {
		if got := inAny(dir, roots); got != want {
			t.Errorf("inAny(%q) = %v", dir, got)
		}
	}
}
