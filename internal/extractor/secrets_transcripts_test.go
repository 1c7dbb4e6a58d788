package extractor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/transcript"
)

// The secret forms and the ordinary facts, each in a real session of every
// transcript format (OpenCode's database, Claude Code's and Codex's JSONL),
// read and sent through a real pass: the secret is in the user's message, a
// tool call's input and the tool's output, and must not reach the model;
// a memory the model proposes with it must not be written.

// transcriptFormats are the transcript transcriptFormats a table runs through, by source name.
var transcriptFormats = []string{"opencode", "claude", "codex"}

// sessionWorld holds one session per text in each format and an extractor
// over all of them.
type sessionWorld struct {
	*env
	x      *Extractor
	claude string // Claude Code's projects folder
	codex  string // Codex's sessions folder
}

func newSessionWorld(t *testing.T) *sessionWorld {
	e := newEnv(t)
	w := &sessionWorld{env: e, claude: filepath.Join(t.TempDir(), "projects"), codex: filepath.Join(t.TempDir(), "sessions")}
	os.MkdirAll(w.claude, 0o755)
	os.MkdirAll(w.codex, 0o755)
	opts := transcript.Options{}
	w.x = New(Options{Folder: e.folder(), StateDir: e.state, Model: "test/model"},
		Deps{LLM: e.llm.completer(), Repo: e.repo, Sources: transcript.FixedSources(e.src, transcript.NewClaude(w.claude, opts), transcript.NewCodex(w.codex, opts))})
	return w
}

// add writes a session in the format whose user says text and whose
// assistant runs text as a shell command, getting text back, and returns
// the session's id.
func (w *sessionWorld) add(format string, i int, text string) string {
	w.t.Helper()
	switch format {
	case "opencode":
		id := fmt.Sprintf("ses_%03d", i)
		w.db.session(id, "/w/acme")
		w.db.turn(id, text, obj{"type": "tool", "tool": "bash", "callID": "call_1", "state": obj{"status": "completed",
			"input": obj{"command": text, "description": "Run it"}, "output": text, "title": "bash"}}, "Done.")
		return id
	case "claude":
		id := fmt.Sprintf("-w-acme/0b3c5e1a-7f2d-4c1e-9a8b-%012d.jsonl", i)
		line := func(typ, at string, message obj) string {
			return js(obj{"type": typ, "cwd": "/w/acme", "sessionId": "s", "uuid": typ + at, "timestamp": "2025-06-01T10:00:" + at + ".000Z",
				"isSidechain": false, "message": message}) + "\n"
		}
		w.write(w.claude, id, line("user", "01", obj{"role": "user", "content": text})+
			line("assistant", "02", obj{"id": "msg_1", "role": "assistant", "stop_reason": "tool_use",
				"content": []obj{{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": obj{"command": text, "description": "Run it"}}}})+
			line("user", "03", obj{"role": "user", "content": []obj{{"type": "tool_result", "tool_use_id": "toolu_1", "content": text}}})+
			line("assistant", "04", obj{"id": "msg_2", "role": "assistant", "stop_reason": "end_turn",
				"content": []obj{{"type": "text", "text": "Done."}}}))
		return id
	default:
		id := fmt.Sprintf("2025/06/01/rollout-2025-06-01T10-00-00-0199b0c2-1111-7222-8333-%012d.jsonl", i)
		line := func(typ, at string, payload obj) string {
			return js(obj{"timestamp": "2025-06-01T10:00:" + at + ".000Z", "type": typ, "payload": payload}) + "\n"
		}
		w.write(w.codex, id, line("session_meta", "00", obj{"id": "s", "cwd": "/w/acme"})+
			line("event_msg", "01", obj{"type": "task_started"})+
			line("response_item", "01", obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": text}}})+
			line("response_item", "02", obj{"type": "function_call", "name": "shell", "call_id": "c1",
				"arguments": js(obj{"command": []string{"bash", "-lc", text}})})+
			line("response_item", "03", obj{"type": "function_call_output", "call_id": "c1", "output": text})+
			line("response_item", "04", obj{"type": "message", "role": "assistant", "content": []obj{{"type": "output_text", "text": "Done."}}})+
			line("event_msg", "04", obj{"type": "task_complete"}))
		return id
	}
}

func (w *sessionWorld) write(root, id, content string) {
	w.t.Helper()
	p := filepath.Join(root, filepath.FromSlash(id))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// sessions adds a session for every text in every format: ids[format][i].
func (w *sessionWorld) sessions(texts []string) map[string][]string {
	ids := map[string][]string{}
	for _, format := range transcriptFormats {
		for i, text := range texts {
			ids[format] = append(ids[format], w.add(format, i, text))
		}
	}
	return ids
}

func TestSecretFormsInTranscripts(t *testing.T) {
	w := newSessionWorld(t)
	texts := make([]string, len(secretForms))
	for i, f := range secretForms {
		texts[i] = f.text
	}
	ids := w.sessions(texts)
	head := git(t, w.notes, "rev-parse", "HEAD")
	for i, f := range secretForms {
		for _, format := range transcriptFormats {
			t.Run(format+"/"+f.name, func(t *testing.T) {
				body := "Keep this for later: " + f.text
				w.llm.set(answerWith(mem("create", "reference", fmt.Sprintf("form-%d", i), "A credential the user shared", body)))
				calls := len(w.llm.calls())
				res, err := w.x.Extract(ctx, format, ids[format][i])
				if err != nil {
					t.Fatal(err)
				}
				if len(w.llm.calls()) != calls+1 {
					t.Fatalf("%d model calls, want 1", len(w.llm.calls())-calls)
				}
				prompt := w.llm.calls()[calls].Prompt
				if piece := secretLeak(prompt, f.secret); piece != "" {
					t.Errorf("%q reached the model:\n%s", piece, prompt)
				}
				if !strings.Contains(prompt, "[tool ") {
					t.Errorf("no tool call in what was sent:\n%s", prompt)
				}
				want := 2 // the message's and the tool input's
				if strings.Contains(f.name, "tool-input limit") {
					want = 1 // the tool input lost the word the limit fell in
				}
				if res.Redacted < want {
					t.Errorf("%d secrets redacted, want %d", res.Redacted, want)
				}
				if len(res.Changes) != 0 || len(res.Rejected) != 1 || res.Rejected[0].Reason != "contains a secret" {
					t.Errorf("changes %+v, rejected %+v", res.Changes, res.Rejected)
				}
			})
		}
	}
	if files := w.files(); len(files) != 0 || git(t, w.notes, "rev-parse", "HEAD") != head {
		t.Errorf("written: %v", files)
	}
}

func TestOrdinaryFactsInTranscripts(t *testing.T) {
	w := newSessionWorld(t)
	texts := make([]string, len(ordinaryFacts))
	for i, f := range ordinaryFacts {
		texts[i] = f.text
	}
	ids := w.sessions(texts)
	for i, f := range ordinaryFacts {
		for _, format := range transcriptFormats {
			t.Run(format+"/"+f.name, func(t *testing.T) {
				w.llm.set(answerWith(mem("create", "project", fmt.Sprintf("fact-%d", i), "A fact about the project", f.text)))
				calls := len(w.llm.calls())
				res, err := w.x.DryRun(ctx, format, ids[format][i])
				if err != nil {
					t.Fatal(err)
				}
				prompt := w.llm.calls()[calls].Prompt
				if res.Redacted != 0 || !strings.Contains(prompt, "[user] "+f.text) {
					t.Errorf("%d redacted; the fact is not sent as written:\n%s", res.Redacted, prompt)
				}
				for _, r := range res.Rejected {
					if f.gate == "" || !strings.Contains(r.Reason, f.gate) {
						t.Errorf("rejected: %+v", r)
					}
				}
				if f.gate == "" && len(res.Changes) != 1 {
					t.Errorf("changes %+v", res.Changes)
				}
			})
		}
	}
}

// TestLongMessageRedactedBeforeCut: a message longer than maxMessageChars
// is cut in the middle; a secret that straddles the cut must still be
// redacted, which needs redaction to run first.
func TestLongMessageRedactedBeforeCut(t *testing.T) {
	const token = "ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue"
	head := maxMessageChars * 2 / 3
	for _, at := range []int{head - 20, head - 5, head - 1} {
		text := strings.Repeat("x", at-1) + " " + token + " " + strings.Repeat("y ", maxMessageChars)
		got, n := block(transcript.Message{Role: "user", Text: text,
			Tools: []transcript.ToolUse{{Name: "bash", Input: "git push https://" + token + "@github.com/a/b"}}})
		if n != 2 {
			t.Errorf("at %d: %d redactions, want 2", at, n)
		}
		for i := 0; i+10 <= len(token); i++ {
			if strings.Contains(got, token[i:i+10]) {
				t.Fatalf("at %d: %q of the token reached the prompt", at, token[i:i+10])
			}
		}
	}
}
