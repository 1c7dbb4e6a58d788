package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestReleaseConfig checks .goreleaser.yaml against the program: it builds
// memoryd for Linux and macOS on amd64 and arm64, sets the version
// variables that exist here, packs the licence and the manual page the
// program makes, and writes checksums. (goreleaser itself is not needed to
// run the tests; `goreleaser check` is the release's own check.)
func TestReleaseConfig(t *testing.T) {
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `yaml:"version"`
		Before  struct {
			Hooks []string `yaml:"hooks"`
		} `yaml:"before"`
		Builds []struct {
			Main    string   `yaml:"main"`
			Binary  string   `yaml:"binary"`
			Env     []string `yaml:"env"`
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
		Archives []struct {
			Formats []string `yaml:"formats"`
			Files   []any    `yaml:"files"`
		} `yaml:"archives"`
		Checksum struct {
			Name      string `yaml:"name_template"`
			Algorithm string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 {
		t.Errorf("version: %d, want 2", cfg.Version)
	}
	if len(cfg.Builds) != 1 {
		t.Fatalf("%d builds, want 1", len(cfg.Builds))
	}
	b := cfg.Builds[0]
	if b.Main != "./cmd/memoryd" || b.Binary != "memoryd" {
		t.Errorf("build: main %q binary %q", b.Main, b.Binary)
	}
	if _, err := os.Stat("../../" + b.Main); err != nil {
		t.Errorf("build main: %v", err)
	}
	for _, os := range []string{"linux", "darwin"} {
		if !slices.Contains(b.Goos, os) {
			t.Errorf("goos %v lacks %s", b.Goos, os)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		if !slices.Contains(b.Goarch, arch) {
			t.Errorf("goarch %v lacks %s", b.Goarch, arch)
		}
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Errorf("env %v: the release binaries are pure Go", b.Env)
	}
	ldflags := strings.Join(b.Ldflags, " ")
	for _, v := range []string{"main.buildVersion=", "main.buildDate="} {
		if !strings.Contains(ldflags, "-X "+v) {
			t.Errorf("ldflags %q do not set %s", ldflags, v)
		}
	}
	// The variables the ldflags set exist and start empty.
	if buildVersion != "" || buildDate != "" {
		t.Errorf("a test binary has buildVersion %q buildDate %q", buildVersion, buildDate)
	}
	hooks := strings.Join(cfg.Before.Hooks, "\n")
	if !strings.Contains(hooks, "go run ./cmd/memoryd man --dir build/man") {
		t.Errorf("no hook writes the manual pages:\n%s", hooks)
	}
	if c, _, err := newRootCmd(&app{}).Find([]string{"man"}); err != nil || c.Name() != "man" || c.Flags().Lookup("dir") == nil {
		t.Error("the hook runs `memoryd man --dir`, which is not a command")
	}
	if len(cfg.Archives) != 1 || !slices.Contains(cfg.Archives[0].Formats, "tar.gz") {
		t.Fatalf("archives: %+v", cfg.Archives)
	}
	var files []string // each file's path, or its src
	for _, f := range cfg.Archives[0].Files {
		switch f := f.(type) {
		case string:
			files = append(files, f)
		case map[string]any:
			src, _ := f["src"].(string)
			files = append(files, src)
		}
	}
	for _, f := range []string{"LICENSE", "README.md", "CHANGELOG.md", "build/man/*.1"} {
		if !slices.Contains(files, f) {
			t.Errorf("archive files %s lack %s", files, f)
		}
		if f != "build/man/*.1" {
			if _, err := os.Stat("../../" + f); err != nil {
				t.Errorf("archived file: %v", err)
			}
		}
	}
	if cfg.Checksum.Name == "" || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum: %+v", cfg.Checksum)
	}
}
