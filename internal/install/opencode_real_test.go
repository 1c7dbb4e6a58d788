package install

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/needtool"
)

// openCodeConfig runs the real `opencode debug config` with home and
// xdgConfig as its HOME and XDG_CONFIG_HOME, everything else in temporary
// folders and the network features off, and returns the instructions of the
// configuration it resolved.
func openCodeConfig(t *testing.T, home, xdgConfig string) []string {
	t.Helper()
	bin := needtool.Path(t, "opencode")
	root := t.TempDir()
	work := filepath.Join(root, "work")
	mustMkdir(t, work)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "debug", "config")
	cmd.Dir = work
	cmd.Env = []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + xdgConfig,
		"XDG_DATA_HOME=" + filepath.Join(root, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(root, "cache"),
		"XDG_STATE_HOME=" + filepath.Join(root, "state"),
		"PATH=" + os.Getenv("PATH"),
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_PROJECT_CONFIG=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS=1",
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("opencode debug config: %v\n%s\n%s", err, &stdout, &stderr)
	}
	var cfg struct {
		Instructions []string `json:"instructions"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &cfg); err != nil {
		t.Fatalf("opencode debug config output: %v\n%s", err, &stdout)
	}
	return cfg.Instructions
}

func containsAll(list, want []string) bool {
	for _, w := range want {
		if !slices.Contains(list, w) {
			return false
		}
	}
	return true
}

func containsAny(list, want []string) bool {
	for _, w := range want {
		if slices.Contains(list, w) {
			return true
		}
	}
	return false
}

// TestRealOpenCodeLoadsWiredInstructions wires and unwires each layout of
// the global config folder and asks the real OpenCode what it resolved.
func TestRealOpenCodeLoadsWiredInstructions(t *testing.T) {
	needtool.Path(t, "opencode")
	jsonc := `{
  // personal settings
  "theme": "dark", /* kept */
  "instructions": [
    "/home/me/rules.md", // house rules
  ],
}
`
	cases := []struct {
		name   string
		files  map[string]string
		target string
		keep   []string // entries OpenCode must still see after wiring
	}{
		{"no config yet", nil, "opencode.json", nil},
		{"jsonc with comments and trailing commas", map[string]string{"opencode.jsonc": jsonc}, "opencode.jsonc", []string{"/home/me/rules.md"}},
		{"only config.json has instructions", map[string]string{
			"config.json":   `{"instructions": ["/home/me/old.md"]}`,
			"opencode.json": `{"theme": "dark"}`,
		}, "config.json", []string{"/home/me/old.md"}},
		{"a later file's list wins", map[string]string{
			"opencode.json":  `{"instructions": ["/home/me/masked.md"]}`,
			"opencode.jsonc": `{"instructions": ["/home/me/used.md"]}`,
		}, "opencode.jsonc", []string{"/home/me/used.md"}},
		{"last existing file without instructions", map[string]string{
			"config.json":   `{"theme": "dark"}`,
			"opencode.json": `{"autoupdate": false}`,
		}, "opencode.json", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			home, xdg := filepath.Join(root, "home"), filepath.Join(root, "config")
			dir := OpenCodeDir(home, xdg)
			for name, data := range tc.files {
				writeFile(t, filepath.Join(dir, name), data, 0o644)
			}
			memory := filepath.Join(root, "notes", "memory")
			want := Instructions(memory)

			file, changed, err := WireOpenCode(dir, want)
			if err != nil || !changed || file != filepath.Join(dir, tc.target) {
				t.Fatalf("wire: file=%s changed=%v err=%v", file, changed, err)
			}
			got := openCodeConfig(t, home, xdg)
			if !containsAll(got, want) || !containsAll(got, tc.keep) {
				t.Fatalf("opencode resolved instructions %q, want %q and %q", got, want, tc.keep)
			}
			if slices.Contains(got, "/home/me/masked.md") {
				t.Errorf("an earlier file's list was not replaced: %q", got)
			}
			if tc.target == "opencode.jsonc" && tc.keep[0] == "/home/me/rules.md" {
				text := readFile(t, file)
				for _, c := range []string{"// personal settings", "/* kept */", "// house rules", `"/home/me/rules.md", // house rules`} {
					if !strings.Contains(text, c) {
						t.Errorf("lost %q:\n%s", c, text)
					}
				}
			}

			if _, err := UnwireOpenCode(dir, want); err != nil {
				t.Fatal(err)
			}
			got = openCodeConfig(t, home, xdg)
			if containsAny(got, want) || !containsAll(got, tc.keep) {
				t.Errorf("after unwire opencode resolved %q", got)
			}
			if tc.target == "opencode.jsonc" && tc.keep[0] == "/home/me/rules.md" {
				text := readFile(t, file)
				for _, c := range []string{"// personal settings", "/* kept */", "// house rules"} {
					if !strings.Contains(text, c) {
						t.Errorf("lost %q after unwire:\n%s", c, text)
					}
				}
			}
		})
	}
}

// TestRealOpenCodeAfterInstall runs Install and Uninstall end to end (with
// stand-in service managers) and checks what the real OpenCode loads.
func TestRealOpenCodeAfterInstall(t *testing.T) {
	needtool.Path(t, "opencode")
	e := newEnv(t, "linux")
	if _, err := Install(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(e.opts.MemoryDir, "PROTOCOL.md"), filepath.Join(e.opts.MemoryDir, "MEMORY.md")}
	if got := openCodeConfig(t, e.opts.Home, e.opts.XDGConfigHome); !containsAll(got, want) {
		t.Fatalf("after install opencode loads %q", got)
	}
	if _, err := Uninstall(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	if got := openCodeConfig(t, e.opts.Home, e.opts.XDGConfigHome); containsAny(got, want) {
		t.Fatalf("after uninstall opencode loads %q", got)
	}
}
