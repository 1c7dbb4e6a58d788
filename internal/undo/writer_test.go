package undo

import (
	"errors"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/facts"
)

// TestUndoOfAModelChangeIsAPersons: undoing a model's replacement puts a
// person's text back, and that version counts as the person's: a model may
// not then drop its lines. (Who wrote a version is read from the commit's
// trailer; the undo's subject names the model's commit, "(mcp: codex)",
// which must not make it count as the model's.)
func TestUndoOfAModelChangeIsAPersons(t *testing.T) {
	dir, _ := newRepo(t)
	f := openFolder(t, dir, t.TempDir())
	person := facts.New(facts.Options{Folder: f, Who: "cli"})
	model := facts.New(facts.Options{Folder: f, Who: "mcp: codex", Model: true})
	fact := facts.Fact{Type: "user", Name: "shell", Description: "Uses zsh", Body: "Uses zsh with oh-my-zsh.\nSet up by hand in 2024."}
	if _, err := person.Save(ctx, fact, false); err != nil {
		t.Fatal(err)
	}
	more := fact
	more.Body += "\nPrefers the agnoster theme."
	if _, err := model.Save(ctx, more, true); err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, Options{Folder: f})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Undone.Subject, "(mcp: codex)") {
		t.Fatalf("undid %q, want the model's replace", res.Undone.Subject)
	}
	drop := fact
	drop.Body = "Uses bash."
	if _, err := model.Save(ctx, drop, true); !errors.Is(err, facts.ErrHandLines) {
		t.Fatalf("a model replaced the person's restored text: %v", err)
	}
}
