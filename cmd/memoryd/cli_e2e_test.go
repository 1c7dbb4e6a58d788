package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/config"
)

// These tests run the built binary, as a user would.

func TestCLIVersionFlag(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		stdout, stderr, code := w.runCmd2(nil, args...)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if code != 0 || stderr != "" || !strings.HasPrefix(lines[0], "memoryd ") {
			t.Fatalf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
		}
		if !strings.Contains(stdout, "go:          "+runtime.Version()) {
			t.Errorf("%q: no Go version:\n%s", args, stdout)
		}
		// The test binary is built from the repository, so the VCS stamp is
		// there unless git could not be asked.
		if strings.HasPrefix(lines[0], "memoryd dev-") && !regexp.MustCompile(`(?m)^  commit: +[0-9a-f]{40}`).MatchString(stdout) {
			t.Errorf("%q: version names a commit but the full commit is missing:\n%s", args, stdout)
		}
	}
}

// TestCLIUsageErrorIsOneLinePlusUsage checks stray arguments and bad flags:
// exit 2, nothing on stdout, one line naming the problem, then the usage.
func TestCLIUsageErrorIsOneLinePlusUsage(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		args  []string
		first string
	}{
		{[]string{"history", "foo"}, "memoryd history: unexpected argument: foo"},
		{[]string{"status", "a", "b"}, "memoryd status: unexpected arguments: a b"},
		{[]string{"undo", "abc123", "def456"}, "memoryd undo: too many arguments (at most 1): abc123 def456"},
		{[]string{"history", "-n", "x"}, `memoryd history: invalid value "x" for flag -n: parse error`},
		{[]string{"status", "--nope"}, "memoryd status: unknown flag --nope"},
	} {
		stdout, stderr, code := w.runCmd2(nil, tc.args...)
		lines := strings.Split(stderr, "\n")
		if code != 2 || stdout != "" || len(lines) < 2 || lines[0] != tc.first ||
			!strings.HasPrefix(lines[1], "usage: memoryd "+tc.args[0]) || strings.Count(stderr, "usage:") != 1 {
			t.Errorf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, stdout, stderr)
		}
	}
	stdout, stderr, code := w.runCmd2(nil, "frobnicate")
	if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "memoryd: unknown command \"frobnicate\"\n") {
		t.Errorf("unknown command: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestCLIFlagAfterArgument checks git-style flag placement: the flag after
// the commit is parsed as a flag (its folder is used), the commit stays an
// argument.
func TestCLIFlagAfterArgument(t *testing.T) {
	w := newWorld(t)
	elsewhere := []string{"MEMORY_DIR=" + filepath.Join(w.home, "not-this-one")}
	_, stderr, code := w.runCmd2(elsewhere, "undo", "abc123", "--memory-dir", w.mem)
	if code != 1 || strings.Contains(stderr, "usage:") || strings.Contains(stderr, "not-this-one") || !strings.Contains(stderr, "abc123") {
		t.Errorf("undo abc123 --memory-dir DIR: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := w.runCmd2(elsewhere, "history", "--memory-dir", w.mem, "-n", "1", "--", "--json")
	if code != 2 || !strings.HasPrefix(stderr, "memoryd history: unexpected argument: --json\n") {
		t.Errorf("-- ends flags: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestCLIHelpOnceOnStdout checks `CMD --help`: the usage once, on stdout,
// exit 0.
func TestCLIHelpOnceOnStdout(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		args []string
		cmd  string
	}{
		{[]string{"status", "--help"}, "status"},
		{[]string{"status", "-h"}, "status"},
		{[]string{"help", "status"}, "status"},
		{[]string{"undo", "abc123", "--help"}, "undo"},
	} {
		stdout, stderr, code := w.runCmd2(nil, tc.args...)
		if code != 0 || stderr != "" || strings.Count(stdout, "usage:") != 1 || !strings.HasPrefix(stdout, "usage: memoryd "+tc.cmd) {
			t.Errorf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, stdout, stderr)
		}
	}
	stdout, stderr, code := w.runCmd2(nil, "--help")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "usage: memoryd <command>") {
		t.Errorf("--help: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = w.runCmd2(nil)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "usage: memoryd <command>") {
		t.Errorf("no command: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConfigCommandShowsOrigins checks `memoryd config` and its --json:
// each value with the file line, variable, flag or default it came from.
func TestConfigCommandShowsOrigins(t *testing.T) {
	w := newWorld(t)
	path := filepath.Join(w.home, "memoryd.yaml")
	os.WriteFile(path, []byte("# mine\nmemory_dir: ~/elsewhere\ncompact:\n  churn: 3\n  enabled: off\n"), 0o600)
	extra := []string{"MEMORYD_CONFIG=" + path, "MEMORY_DIR=", "MEMORY_LLM_API_KEY=sk-secret"}
	stdout, stderr, code := w.runCmd2(extra, "config", "--memory-dir", "~/notes/memory")
	if code != 0 {
		t.Fatalf("config: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`(?m)^# config file: ` + regexp.QuoteMeta(path) + `$`,
		`(?m)^memory_dir +` + regexp.QuoteMeta(w.mem) + ` +flag --memory-dir$`,
		`(?m)^compact\.churn +3 +` + regexp.QuoteMeta(path) + `:4$`,
		`(?m)^compact\.enabled +false +` + regexp.QuoteMeta(path) + `:5$`,
		`(?m)^llm\.provider +none +env MEMORY_LLM_PROVIDER$`,
		`(?m)^llm\.api_key +\(hidden\) +env MEMORY_LLM_API_KEY$`,
		`(?m)^index\.rescan +10m +default$`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("config output lacks %s:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "sk-secret") {
		t.Error("config prints the API key")
	}

	stdout, _, code = w.runCmd2(extra, "config", "--json")
	var r config.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 0 {
		t.Fatalf("config --json: exit %d, %v\n%s", code, err, stdout)
	}
	got := map[string]config.ReportSetting{}
	for _, s := range r.Settings {
		got[s.Key] = s
	}
	if s := got["memory_dir"]; s.Value != filepath.Join(w.home, "elsewhere") || s.Origin != "file" || s.File != path || s.Line != 2 {
		t.Errorf("memory_dir: %+v", s)
	}
	if s := got["log_level"]; s.Origin != "env" || s.Name != "MEMORY_LOG_LEVEL" || s.Value != "debug" {
		t.Errorf("log_level: %+v", s)
	}
	if !r.FileFound || r.File != path || len(r.Problems) != 0 {
		t.Errorf("report: file %q found %v problems %q", r.File, r.FileFound, r.Problems)
	}
}

// TestConfigErrorsInUsersWords checks what a command prints for a broken
// configuration: file:line and key with a suggestion, or the variable.
func TestConfigErrorsInUsersWords(t *testing.T) {
	w := newWorld(t)
	path := filepath.Join(w.home, "memoryd.yaml")
	os.WriteFile(path, []byte("extract:\n  enabled: true\n  modle: x\n"), 0o600)
	_, stderr, code := w.runCmd2([]string{"MEMORYD_CONFIG=" + path}, "status")
	if want := "memoryd status: " + path + ":3: extract.modle: unknown key (did you mean extract.model?)\n"; code != 1 || stderr != want {
		t.Errorf("unknown key: exit %d\n%s\nwant\n%s", code, stderr, want)
	}
	_, stderr, code = w.runCmd2([]string{"MEMORY_COMPACT_CHURN=0"}, "status")
	if want := "memoryd status: env MEMORY_COMPACT_CHURN: compact.churn: must be at least 1 (got 0)\n"; code != 1 || stderr != want {
		t.Errorf("bad variable: exit %d\n%s\nwant\n%s", code, stderr, want)
	}
	stdout, stderr, code := w.runCmd2([]string{"MEMORYD_CONFIG=" + path, "MEMORY_EXTRACT_ENABLED=perhaps"}, "config")
	if code != 1 || !strings.Contains(stdout, "extract.enabled") ||
		!strings.Contains(stderr, path+":3: extract.modle: unknown key") ||
		!strings.Contains(stderr, `env MEMORY_EXTRACT_ENABLED: extract.enabled: must be true/false, yes/no, on/off or 1/0 (got "perhaps")`) {
		t.Errorf("config with problems: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
