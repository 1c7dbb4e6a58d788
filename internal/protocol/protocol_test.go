package protocol

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestEnsureWritesOnlyWhenMissing(t *testing.T) {
	dir := t.TempDir()
	written, err := Ensure(dir)
	if err != nil || !written {
		t.Fatalf("first Ensure: written=%v err=%v", written, err)
	}
	p := filepath.Join(dir, File)
	got, _ := os.ReadFile(p)
	if !bytes.Equal(got, Default) {
		t.Fatal("written file differs from Default")
	}

	edited := []byte("# My own rules\n")
	if err := os.WriteFile(p, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	written, err = Ensure(dir)
	if err != nil || written {
		t.Fatalf("Ensure over an edited copy: written=%v err=%v", written, err)
	}
	got, _ = os.ReadFile(p)
	fi, _ := os.Stat(p)
	if !bytes.Equal(got, edited) || !fi.ModTime().Equal(old) {
		t.Fatalf("edited copy touched: %q, mtime %v", got, fi.ModTime())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("stray files: %v", entries)
	}
}

func TestEnsureLeavesSymlinkAndEmptyFileAlone(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "shared-protocol.md")
	if err := os.WriteFile(target, []byte("shared\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, File)); err != nil {
		t.Fatal(err)
	}
	if written, err := Ensure(dir); err != nil || written {
		t.Fatalf("symlink: written=%v err=%v", written, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "shared\n" {
		t.Fatalf("symlink target changed: %q", got)
	}

	dir2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir2, File), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if written, err := Ensure(dir2); err != nil || written {
		t.Fatalf("empty file: written=%v err=%v", written, err)
	}
}

func TestEnsureMissingFolder(t *testing.T) {
	if _, err := Ensure(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("Ensure into a missing folder succeeded")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if !bytes.Equal(Load(dir), Default) {
		t.Error("no file: want Default")
	}
	p := filepath.Join(dir, File)
	if err := os.WriteFile(p, []byte("# Custom\nOnly facts about cats.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Load(dir); string(got) != "# Custom\nOnly facts about cats.\n" {
		t.Errorf("custom copy: got %q", got)
	}
	if err := os.WriteFile(p, []byte(" \n\t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Load(dir), Default) {
		t.Error("blank copy: want Default")
	}
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), maxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Load(dir), Default) {
		t.Error("oversized copy: want Default")
	}
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), maxSize), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(Load(dir)) != maxSize {
		t.Error("copy of exactly the limit: want the copy")
	}

	dir2 := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir2, File), 0o755); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Load(dir2), Default) {
		t.Error("unreadable (a folder): want Default")
	}
}

// TestDefaultCoversTheRules guards the protocol against an edit that drops
// one of the rules other parts of memoryd rely on.
func TestDefaultCoversTheRules(t *testing.T) {
	text := string(Default)
	for _, want := range []string{
		"`<type>-<name>.md`", "64 characters", "metadata:", "`user`", "`feedback`", "`project`",
		"`reference`", "Why:", "[[name]]", "MEMORY.md", "_CONFLICTS.md", "readonly: true",
		"secrets", "update it", "Durable", "Not derivable",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("protocol does not mention %q", want)
		}
	}
	if n := strings.Count(text, "\n"); n < 80 || n > 130 {
		t.Errorf("protocol is %d lines; agents read it every session, keep it about 80-120", n)
	}
	if !strings.HasSuffix(text, "\n") || strings.Contains(text, "\r") {
		t.Error("protocol must use LF line endings and end with a newline")
	}
}

// TestDefaultExamplesFollowTheFormat parses every example memory file in the
// protocol: an example that breaks the format teaches the agent to break it.
func TestDefaultExamplesFollowTheFormat(t *testing.T) {
	name := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	types := map[string]bool{"user": true, "feedback": true, "project": true, "reference": true}
	seen := map[string]bool{}
	for _, block := range fencedBlocks(string(Default)) {
		if !strings.HasPrefix(block, "---\n") {
			continue
		}
		front, body, ok := strings.Cut(strings.TrimPrefix(block, "---\n"), "\n---\n")
		if !ok {
			t.Errorf("example without closing frontmatter:\n%s", block)
			continue
		}
		var fm struct {
			Name        string `yaml:"name"`
			Description string `yaml:"description"`
			Metadata    struct {
				Type string `yaml:"type"`
			} `yaml:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
			t.Errorf("example frontmatter: %v\n%s", err, front)
			continue
		}
		if !name.MatchString(fm.Name) || len(fm.Name) > 64 {
			t.Errorf("example name %q is not a kebab slug", fm.Name)
		}
		if !types[fm.Metadata.Type] || fm.Description == "" || strings.TrimSpace(body) == "" {
			t.Errorf("example %q: type %q, description %q, body %q", fm.Name, fm.Metadata.Type, fm.Description, body)
		}
		if (fm.Metadata.Type == "feedback" || fm.Metadata.Type == "project") && !strings.Contains(body, "Why:") {
			t.Errorf("example %q has no Why: line", fm.Name)
		}
		seen[fm.Metadata.Type] = true
	}
	if len(seen) != len(types) {
		t.Errorf("examples cover types %v, want all four", seen)
	}
}

// fencedBlocks returns the contents of the ``` blocks in md, with the
// block's own indentation removed.
func fencedBlocks(md string) []string {
	var blocks []string
	var cur []string
	indent, in := "", false
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case !in && strings.HasPrefix(trimmed, "```"):
			in, indent, cur = true, line[:len(line)-len(trimmed)], nil
		case in && trimmed == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, strings.TrimPrefix(line, indent))
		}
	}
	return blocks
}
