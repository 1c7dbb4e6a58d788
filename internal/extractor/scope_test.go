package extractor

import (
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

// TestExtractScopesFactsToTheProject: the model is told the session's
// project slug; a project fact belongs to it, a user fact never has one, a
// feedback fact has one only when the model says so.
func TestExtractScopesFactsToTheProject(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/home/ana/My Shop")
	e.db.turn("ses_1", "Remember: releases of this shop go out on Tuesdays; I live in Lisbon; in this repo always run make lint first.", "Noted.")
	rel := mem("create", "project", "release-day", "Releases go out on Tuesdays", "Releases of the shop go out on Tuesdays.")
	user := mem("create", "user", "city", "Lives in Lisbon", "The user lives in Lisbon.")
	user["project"] = "my-shop"
	lint := mem("create", "feedback", "lint-first", "Run make lint first", "Run make lint before anything else in this repository.")
	lint["project"] = "my-shop"
	e.llm.set(answerWith(rel, user, lint))
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.llm.calls()[0].Prompt, "(project slug: my-shop)") {
		t.Errorf("the prompt does not give the slug:\n%s", e.llm.calls()[0].Prompt)
	}
	for file, want := range map[string]string{"project-release-day.md": "my-shop", "user-city.md": "", "feedback-lint-first.md": "my-shop"} {
		m, err := index.Parse(file, []byte(e.read(file)))
		if err != nil || m.Project != want {
			t.Errorf("%s: project %q, want %q (%v)", file, m.Project, want, err)
		}
	}
	if !strings.Contains(e.read("MEMORY.md"), "MEMORY.my-shop.md") {
		t.Errorf("MEMORY.md has no project line:\n%s", e.read("MEMORY.md"))
	}
	if st := git(t, e.notes, "status", "--porcelain"); st != "" {
		t.Errorf("the project's index was left uncommitted:\n%s", st)
	}
}
