package extractor

import (
	"errors"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/transcript"
)

// TestExcerptFromOpenCode: the part of an OpenCode session a fact came
// from, redacted as it was sent; a session that is gone says so.
func TestExcerptFromOpenCode(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/home/ana/proj")
	e.db.turn("ses_1", "Remember: deploys use token ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue and always go through CI.", "Noted, CI only.")
	e.llm.set(answerWith(mem("create", "feedback", "deploy-via-ci", "Deploys go through CI", "Deploys always go through CI, never by hand.")))
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); err != nil {
		t.Fatal(err)
	}
	m, err := index.Parse("feedback-deploy-via-ci.md", []byte(e.read("feedback-deploy-via-ci.md")))
	if err != nil || len(m.Sources) != 1 {
		t.Fatalf("%+v %v", m, err)
	}
	text, err := e.x.Excerpt(ctx, m.Sources[0])
	if err != nil || !strings.Contains(text, "always go through CI") || !strings.Contains(text, "[assistant] Noted, CI only.") ||
		strings.Contains(text, "ghp_Zq8L") || !strings.Contains(text, "[REDACTED]") {
		t.Fatalf("excerpt %v:\n%s", err, text)
	}
	gone := m.Sources[0]
	gone.Session = "ses_deleted"
	if _, err := e.x.Excerpt(ctx, gone); !errors.Is(err, transcript.ErrSessionGone) {
		t.Fatalf("a session that is gone: %v", err)
	}
	if _, err := e.x.Excerpt(ctx, index.Source{Agent: "cli"}); !errors.Is(err, ErrNoTranscript) {
		t.Fatalf("a person's fact: %v", err)
	}
	ex := e.x.Excerpts(ctx, []index.Source{m.Sources[0], gone, {Agent: "cli"}})
	if len(ex) != 2 || ex[0].Excerpt != text || ex[1].Problem != "the session is gone (deleted from opencode's history)" {
		t.Errorf("excerpts: %+v", ex)
	}
}
