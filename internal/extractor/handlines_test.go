package extractor

import (
	"strings"
	"testing"
)

// TestExtractKeepsHandWrittenLines: a model that ignores "keep what is
// still true" cannot drop a line a person typed. Lines a model wrote may
// change; a line a person added to a model's fact must stay.
func TestExtractKeepsHandWrittenLines(t *testing.T) {
	e := newEnv(t)
	hand := memoryFile("user", "editor", "Editor", "Uses helix as the editor everywhere.\nKeeps a vim config for servers.")
	e.write("user-editor.md", hand)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "I moved to zed for editing.", "Noted.")
	e.llm.set(answerWith(mem("update", "user", "editor", "Editor is zed", "Uses zed as the editor everywhere.")))
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Action != "propose" || res.Changes[0].File != "_inbox/user-editor.md" {
		t.Fatalf("result %+v", res)
	}
	if e.read("user-editor.md") != hand {
		t.Fatal("a hand-written line was dropped")
	}
	if !strings.Contains(e.read("_inbox/user-editor.md"), "Uses zed as the editor everywhere.") {
		t.Fatal("the update was not kept as a proposal for review")
	}

	// A model's fact with a line a person added: the model may rewrite its
	// own line, not the person's.
	e2 := newEnv(t)
	e2.writeByModel("user-editor.md", memoryFile("user", "editor", "Editor", "Uses helix as the editor everywhere."))
	e2.write("user-editor.md", memoryFile("user", "editor", "Editor", "Uses helix as the editor everywhere.\nKeeps a vim config for servers."))
	e2.db.session("ses_1", "/w")
	e2.db.turn("ses_1", "I moved to zed for editing.", "Noted.")
	e2.llm.set(answerWith(mem("update", "user", "editor", "Editor is zed", "Uses zed as the editor everywhere.\nKeeps a vim config for servers.")))
	if res, err := e2.x.Extract(ctx, "opencode", "ses_1"); err != nil || len(res.Changes) != 1 {
		t.Fatalf("keeping the person's line: %+v %v", res, err)
	}
	// (Once a model's commit carries the line, it counts as the model's:
	// the rule compares with what memoryd last committed, as designed.)
}
