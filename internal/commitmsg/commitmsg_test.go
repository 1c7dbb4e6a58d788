package commitmsg

import (
	"strings"
	"testing"
)

var kinds = []Kind{KindAdd, KindReplace, KindEdit, KindForget, KindConfirm, KindSupersede, KindReview, KindImport,
	KindExtraction, KindCompaction, KindCheckpoint, KindUpdate, KindUndo, KindSync, KindMemoryd}

// TestRoundTrip: every kind, written by either writer, reads back as it was
// written, by Parse and by FromParts (what TrailerFormat prints); its
// subject plays no part.
func TestRoundTrip(t *testing.T) {
	for _, k := range kinds {
		for _, w := range []Writer{Person, Model} {
			m := Message{Subject: "memory: something else (cli)", Body: "Why.\n\nMore.", Kind: k, Writer: w, Tokens: 7}
			text := m.String()
			got := Parse(text)
			if got.Kind != k || got.Writer != w || got.Subject != m.Subject || !strings.HasPrefix(got.Body, "Why.\n\nMore.") {
				t.Errorf("%s/%s: Parse(%q) = %+v", k, w, text, got)
			}
			if p := FromParts(m.Subject, " "+string(k)+"\n", string(w)); p.Kind != k || p.Writer != w {
				t.Errorf("%s/%s: FromParts = %+v", k, w, p)
			}
			if !got.Memoryd() || got.ModelWritten() != (w == Model) || got.HandEdits() != (k == KindUpdate) {
				t.Errorf("%s/%s: Memoryd %v ModelWritten %v HandEdits %v", k, w, got.Memoryd(), got.ModelWritten(), got.HandEdits())
			}
			tokens := k == KindExtraction || k == KindCompaction
			if strings.Contains(text, "\nTokens: 7\n") != tokens || (tokens && got.Tokens != 7) {
				t.Errorf("%s: tokens trailer in %q, read %d", k, text, got.Tokens)
			}
		}
	}
}

// TestString: the subject is one line, the trailers close the message, and
// a message without a writer says so by leaving the trailer out (Parse then
// takes the kind's writer).
func TestString(t *testing.T) {
	m := Message{Subject: "memory: add\nuser-a.md   (cli)", Kind: KindAdd, Writer: Person}
	if got, want := m.String(), "memory: add user-a.md (cli)\n\nMemoryd-Kind: add\nMemoryd-Writer: person\n"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	m = Message{Subject: "memory: extract from opencode session s1", Kind: KindExtraction}
	want := "memory: extract from opencode session s1\n\nMemoryd-Kind: extraction\nTokens: 0\n"
	if got := m.String(); got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if got := Parse(want); got.Writer != Model {
		t.Fatalf("an extraction without a writer trailer reads as %q", got.Writer)
	}
	if got := Parse(CheckpointSubject + "\n\nMemoryd-Kind: checkpoint\n"); got.Writer != Person {
		t.Fatalf("a checkpoint without a writer trailer reads as %q", got.Writer)
	}
}

// TestLegacySubjects: the commits of an older memoryd, without trailers,
// are read from their subjects — and only from the subject forms it wrote.
func TestLegacySubjects(t *testing.T) {
	for _, c := range []struct {
		subject string
		kind    Kind
		writer  Writer
	}{
		{"memory: compaction (merged 2, rewrote 1)", KindCompaction, Model},
		{CheckpointSubject, KindCheckpoint, Person},
		{"memory: extract from opencode session ses_1", KindExtraction, Model},
		{"memory: import 3 facts from Claude Code", KindImport, Model},
		{"memory: update user-a.md", KindUpdate, Person},
		{"memory: update 3 files", KindUpdate, Person},
		{"memory: undo 0123456789ab (add user-a.md (cli))", KindUndo, Person},
		{"memory: undo to checkpoint 0123456789ab", KindUndo, Person},
		{"memory: review: accept user-a.md", KindReview, Person},
		{"memory: add user-a.md (cli)", KindAdd, Person},
		{"memory: replace user-a.md (mcp)", KindReplace, Model},
		{"memory: edit user-a.md (cli)", KindEdit, Person},
		{"memory: forget user-a.md (mcp: codex)", KindForget, Model}, // an MCP save before the trailers
		{"memory: add user-a.md (mcp: Claude Code)", KindAdd, Model},
		{"memory: forget user-a.md (mcp-codex)", KindForget, Model},
		{"memory: confirm user-a.md (cli)", KindConfirm, Person},
		{"memory: add user-a.md", KindMemoryd, Person}, // no writer in parentheses
		{"memory: sync: merge origin/main", KindMemoryd, Person},
		{"memory: something new", KindMemoryd, Person},
		{"Add a README", KindOther, ""},
		{"memory:add user-a.md (cli)", KindOther, ""},
		{"", KindOther, ""},
	} {
		got := Parse(c.subject + "\n\nSome body.\n")
		if got.Kind != c.kind || got.Writer != c.writer {
			t.Errorf("Parse(%q) = %q/%q, want %q/%q", c.subject, got.Kind, got.Writer, c.kind, c.writer)
		}
		if p := FromParts(c.subject, "", ""); p.Kind != c.kind || p.Writer != c.writer {
			t.Errorf("FromParts(%q) = %q/%q, want %q/%q", c.subject, p.Kind, p.Writer, c.kind, c.writer)
		}
		if got.Memoryd() != (c.kind != KindOther) {
			t.Errorf("Parse(%q).Memoryd() = %v", c.subject, got.Memoryd())
		}
	}
}

// TestTrailersWinOverTheSubject: a commit with trailers is read from them,
// whatever its subject says ("(mcp" in the subject of an undo, which a
// person made, does not make it a model's).
func TestTrailersWinOverTheSubject(t *testing.T) {
	msg := "memory: undo 0123456789ab (replace user-a.md (mcp))\n\nUndoes it.\n\nMemoryd-Kind: undo\nMemoryd-Writer: person\n"
	if got := Parse(msg); got.Kind != KindUndo || got.Writer != Person || got.ModelWritten() {
		t.Fatalf("Parse = %+v", got)
	}
	if got := Parse("\n\nmemory: add user-a.md (cli)\n"); got.Kind != KindAdd {
		t.Fatalf("leading blank lines: %+v", got)
	}
	if got := FromParts("Anything", "compaction", ""); got.Kind != KindCompaction || got.Writer != Model {
		t.Fatalf("FromParts with a kind only: %+v", got)
	}
}
