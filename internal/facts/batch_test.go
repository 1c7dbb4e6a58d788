package facts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

func TestSaveAll(t *testing.T) {
	w := newWorld(t)
	if _, err := w.w.Save(ctx, tabs, false); err != nil {
		t.Fatal(err)
	}
	w.w.opts.Who = "import"
	items := []Item{
		{Fact: Fact{Type: "project", Name: "deploy", Description: "Deploys with make ship", Body: "make ship", Project: "app-a"},
			Source: index.Source{Agent: "claude-code", Cwd: "/home/me/src/app-a"}},
		{Fact: Fact{Type: "feedback", Name: "tabs", Description: "Tabs, always", Body: "  Use tabs for indentation.\r\nWhy: said so in review.  "}},
		{Fact: Fact{Type: "feedback", Name: "prefers-tabs", Description: "Likes tabs in Go too", Body: "gofmt uses tabs."}},
		{Fact: Fact{Type: "project", Name: "deploy", Description: "Deploys app-b with helm", Body: "helm upgrade", Project: "app-b"}},
		{Fact: Fact{Type: "project", Name: "ship", Description: "Ship it", Body: "make ship", Project: "app-a"}},
		{Fact: Fact{Type: "secret", Name: "x", Description: "x", Body: "x"}},
	}
	msg := func(n int) string { return fmt.Sprintf("memory: import %d facts from Claude Code", n) }

	dry, commit, err := w.w.SaveAll(ctx, items, msg, true)
	if err != nil || commit != "" {
		t.Fatalf("dry run: %v %q", err, commit)
	}
	if entries, _ := os.ReadDir(w.dir); len(entries) != 4 { // the fact, MEMORY.md, PROTOCOL.md, .gitattributes
		t.Fatalf("a dry run wrote files: %v", entries)
	}

	res, commit, err := w.w.SaveAll(ctx, items, msg, false)
	if err != nil || commit == "" {
		t.Fatalf("SaveAll: %v %q", err, commit)
	}
	for i := range res {
		if fmt.Sprint(res[i]) != fmt.Sprint(dry[i]) {
			t.Errorf("item %d: dry run said %+v, the import did %+v", i, dry[i], res[i])
		}
	}
	want := []struct {
		file string
		kind error
	}{
		{"project-deploy.md", nil},
		{"feedback-prefers-tabs.md", ErrDuplicate}, // same body as the fact already there
		{"feedback-prefers-tabs-2.md", nil},        // name taken: numbered
		{"project-deploy-2.md", nil},               // name taken by the batch itself
		{"project-deploy.md", ErrDuplicate},        // same body as an earlier item
		{"", ErrInvalid},
	}
	for i, wt := range want {
		if res[i].File != wt.file || !errors.Is(res[i].Skipped, wt.kind) || (wt.kind == nil) != (res[i].Skipped == nil) {
			t.Errorf("item %d: %+v, want %s %v", i, res[i], wt.file, wt.kind)
		}
	}
	if got := w.log(); got != "memory: import 3 facts from Claude Code\nmemory: add feedback-prefers-tabs.md (cli)\nstart" {
		t.Fatalf("log:\n%s", got)
	}
	deploy := w.read("project-deploy.md")
	for _, s := range []string{"project: app-a", "agent: claude-code", "cwd: /home/me/src/app-a", "updated: "} {
		if !strings.Contains(deploy, s) {
			t.Errorf("project-deploy.md lacks %q:\n%s", s, deploy)
		}
	}
	if !strings.Contains(w.read("feedback-prefers-tabs-2.md"), "agent: import") {
		t.Errorf("an item without a source does not record the writer:\n%s", w.read("feedback-prefers-tabs-2.md"))
	}
	if idx, _ := os.ReadFile(filepath.Join(w.dir, "MEMORY.app-a.md")); !strings.Contains(string(idx), "project-deploy.md") {
		t.Errorf("the project index was not settled:\n%s", idx)
	}

	res, commit, err = w.w.SaveAll(ctx, items, msg, false)
	if err != nil || commit != "" {
		t.Fatalf("second import: %v %q", err, commit)
	}
	for i, r := range res {
		if r.Skipped == nil {
			t.Errorf("second import wrote item %d again: %+v", i, r)
		}
	}
}
