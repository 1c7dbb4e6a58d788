package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// TestManPageListsEveryCommandAndFlag: the manual pages are made by
// cobra/doc from the commands' definitions, so every command help lists
// has its page in `memoryd man`, with each of its flags.
func TestManPageListsEveryCommandAndFlag(t *testing.T) {
	root := newRootCmd(&app{})
	root.DisableAutoGenTag = true
	date := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	if err := writeManPages(&b, root, &doc.GenManHeader{Section: "1", Date: &date, Source: "memoryd v1.2.3", Manual: "User Commands"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if first := strings.SplitN(strings.TrimPrefix(page, ".nh\n"), "\n", 2)[0]; first != `.TH "MEMORYD" "1" "Nov 2026" "memoryd v1.2.3" "User Commands"` {
		t.Errorf("title line: %q", first)
	}
	listed := 0
	for _, c := range root.Commands() {
		name := c.Name()
		title := fmt.Sprintf(".TH \"MEMORYD-%s\"", strings.ToUpper(name))
		at := strings.Index(page, title)
		if !c.IsAvailableCommand() {
			if at >= 0 {
				t.Errorf("hidden command %s is in the pages", name)
			}
			continue
		}
		listed++
		if at < 0 {
			t.Errorf("command %s is not in the pages", name)
			continue
		}
		section := page[at+len(title):]
		if next := strings.Index(section, ".TH "); next >= 0 {
			section = section[:next]
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !strings.Contains(section, `\fB--`+f.Name+`\fP`) {
				t.Errorf("memoryd %s: flag --%s is not in its page", name, f.Name)
			}
		})
	}
	if listed < 25 {
		t.Errorf("only %d commands listed", listed)
	}
}

// TestManDir: `memoryd man --dir DIR` writes one page a command, as
// releases pack them.
func TestManDir(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"man", "--dir", dir}, env{getenv: func(string) string { return "" }, stdout: &bytes.Buffer{}, stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, f := range []string{"memoryd.1", "memoryd-add.1", "memoryd-why.1"} {
		if data, err := os.ReadFile(filepath.Join(dir, f)); err != nil || !bytes.Contains(data, []byte(".TH ")) {
			t.Errorf("%s: %v", f, err)
		}
	}
}
