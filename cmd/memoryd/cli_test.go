package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// These tests run the command line in process; cli_e2e_test.go runs the
// built binary.

// TestCLIFlagsInterspersed checks git-style flag placement, in process:
// flags before and after the arguments, "--" ending them, "-" an argument.
func TestCLIFlagsInterspersed(t *testing.T) {
	cases := []struct {
		args     []string
		wantPos  []string
		wantDir  string
		wantJSON bool
	}{
		{[]string{"abc123", "--memory-dir", "/m"}, []string{"abc123"}, "/m", false},
		{[]string{"--memory-dir=/m", "abc123"}, []string{"abc123"}, "/m", false},
		{[]string{"a", "--json", "b", "--memory-dir", "/m"}, []string{"a", "b"}, "/m", true},
		{[]string{"a", "--", "--json", "-x"}, []string{"a", "--json", "-x"}, "", false},
		{[]string{"-", "--json"}, []string{"-"}, "", true},
		{nil, nil, "", false},
	}
	for _, tc := range cases {
		a := &app{env: env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard}}
		root := newRootCmd(a)
		var pos []string
		var asJSON bool
		probe := &cobra.Command{Use: "probe", RunE: func(_ *cobra.Command, args []string) error { pos = args; return nil }}
		probe.Flags().BoolVar(&asJSON, "json", false, "")
		root.AddCommand(probe)
		root.SetArgs(append([]string{"probe"}, tc.args...))
		if err := root.Execute(); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if !reflect.DeepEqual(pos, tc.wantPos) && len(pos)+len(tc.wantPos) > 0 || a.global.memoryDir != tc.wantDir || asJSON != tc.wantJSON {
			t.Errorf("%q: args %q, --memory-dir %q, --json %v", tc.args, pos, a.global.memoryDir, asJSON)
		}
	}
}

// TestCLINoDoubledPrefix checks that an error already naming the command
// is printed with the command's name once.
func TestCLINoDoubledPrefix(t *testing.T) {
	for _, msg := range []string{"install: service file: denied", "install: install: service file: denied", "memoryd install: service file: denied"} {
		var stderr bytes.Buffer
		root := &cobra.Command{Use: "memoryd"}
		c := &cobra.Command{Use: "install"}
		root.AddCommand(c)
		code := report(c, errors.New(msg), env{getenv: func(string) string { return "" }, stdout: &bytes.Buffer{}, stderr: &stderr})
		if want := "memoryd install: service file: denied\n"; code != exitFail || stderr.String() != want {
			t.Errorf("%q: exit %d, stderr %q, want %q", msg, code, stderr.String(), want)
		}
	}
	if got := failureText("config", errors.New("config file: x")); got != "config file: x" {
		t.Errorf("stripped a word that is not a prefix: %q", got)
	}
}

// TestCLIHelpInProcess checks every registered command's --help: once, on
// stdout, exit 0, nothing on stderr.
func TestCLIHelpInProcess(t *testing.T) {
	root := newRootCmd(&app{})
	if len(root.Commands()) < 25 {
		t.Fatalf("only %d commands", len(root.Commands()))
	}
	for _, c := range root.Commands() {
		name := c.Name()
		if name == "help" {
			continue
		}
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, env{getenv: func(string) string { return "" }, stdout: &stdout, stderr: &stderr})
			if code != exitOK || strings.Count(stdout.String(), "usage: memoryd "+name) != 1 || stderr.Len() != 0 {
				t.Errorf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout.String(), stderr.String())
			}
		}
	}
}

// TestCLIConfigHomeExpandedOnce checks that ~/ in a path from any layer is
// expanded by loadConfig, with the command's HOME.
func TestCLIConfigHomeExpandedOnce(t *testing.T) {
	home := t.TempDir()
	cfgFile := filepath.Join(home, "config.yaml")
	os.WriteFile(cfgFile, []byte("memory_dir: ~/from-file\nextract:\n  opencode_db: ~/oc.db\n"), 0o600)
	vars := map[string]string{"HOME": home, "MEMORYD_CONFIG": cfgFile}
	e := env{getenv: func(k string) string { return vars[k] }, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	for _, tc := range []struct{ flagValue, env, want string }{
		{"", "", filepath.Join(home, "from-file")},
		{"", "~/from-env", filepath.Join(home, "from-env")},
		{"~/from-flag", "~/from-env", filepath.Join(home, "from-flag")},
	} {
		vars["MEMORY_DIR"] = tc.env
		cfg, _, err := loadConfig(e, globalFlags{memoryDir: tc.flagValue})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.MemoryDir != tc.want || cfg.Extract.OpenCodeDB != filepath.Join(home, "oc.db") {
			t.Errorf("flag %q env %q: memory_dir %q, opencode_db %q", tc.flagValue, tc.env, cfg.MemoryDir, cfg.Extract.OpenCodeDB)
		}
	}
}

// TestVersionFromReleaseFlags checks what a release build (-ldflags -X)
// prints: its version on the first line, and the build date.
func TestVersionFromReleaseFlags(t *testing.T) {
	defer func(v, d string) { buildVersion, buildDate = v, d }(buildVersion, buildDate)
	buildVersion, buildDate = "v1.2.3", "2026-01-02T03:04:05Z"
	var out bytes.Buffer
	printVersion(&out)
	lines := strings.Split(out.String(), "\n")
	if lines[0] != "memoryd v1.2.3" || !strings.Contains(out.String(), "\n  built:       2026-01-02T03:04:05Z\n") ||
		!strings.Contains(out.String(), "\n  go:          "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+"\n") {
		t.Errorf("version:\n%s", out.String())
	}
	if version() != "v1.2.3" {
		t.Errorf("version() = %q", version())
	}
}
