package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// Extraction from Claude Code and Codex transcripts: fixture files written
// the way those agents write them, `memoryd extract`, and the fake LLM.

// appendJSONL appends one JSON line per value to path.
func appendJSONL(t testing.TB, path string, lines ...map[string]any) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		b, _ := json.Marshal(l)
		f.Write(append(b, '\n'))
	}
}

// llmWorld is a world whose memoryd uses the fake LLM, without OpenCode.
func llmWorld(t *testing.T, answer func(user string) string) (*world, *llmtest.Server) {
	w := newWorld(t)
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text(answer(r.User)) })
	w.env = append(w.env, "MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL="+srv.OpenAIURL(), "MEMORY_COMPACT_ENABLED=0")
	return w, srv
}

// TestExtractClaudeCode: one pass over a Claude Code transcript, then one
// over the lines appended to it.
func TestExtractClaudeCode(t *testing.T) {
	w, srv := llmWorld(t, func(user string) string {
		if strings.Contains(user, "pnpm") {
			return answerMemories(memJSON("create", "user", "package-manager", "Uses pnpm, not npm", "Uses pnpm for every JavaScript project, never npm."))("")
		}
		return answerMemories(memJSON("create", "feedback", "go-tabs", "Tabs in Go files", "Indent Go files with tabs, as gofmt does.\nWhy: asked to remember it."))("")
	})
	const uuid = "5d6e7f80-1111-4222-8333-444455556666"
	file := filepath.Join(w.home, ".claude", "projects", "-home-ana-proj", uuid+".jsonl")
	line := func(typ, ts string, msg map[string]any) map[string]any {
		return map[string]any{"type": typ, "cwd": "/home/ana/proj", "sessionId": uuid, "isSidechain": false,
			"uuid": typ + ts, "timestamp": "2025-06-01T10:00:" + ts + "Z", "message": msg}
	}
	appendJSONL(t, file,
		map[string]any{"type": "summary", "summary": "Go style", "leafUuid": "x"},
		line("user", "01", map[string]any{"role": "user", "content": "Remember that I prefer tabs in Go files."}),
		line("assistant", "02", map[string]any{"id": "msg_1", "role": "assistant", "stop_reason": "tool_use",
			"content": []any{map[string]any{"type": "tool_use", "name": "Bash", "input": map[string]any{"command": "gofmt -l ."}}}}),
		line("user", "03", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "content": "CLAUDE-TOOL-OUTPUT"}}}),
		line("assistant", "04", map[string]any{"id": "msg_2", "role": "assistant", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": "Noted: tabs in Go."}}}),
	)
	out, code := w.runCmd(nil, "extract")
	if code != 0 || !strings.Contains(out, "created feedback-go-tabs.md") {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	id := "-home-ana-proj/" + uuid + ".jsonl"
	if s := w.subjects()[0]; s != "memory: extract from claude session "+id {
		t.Errorf("subject %q", s)
	}
	p := srv.Prompts()
	if len(p) != 1 || p[0].Task != "extract" {
		t.Fatalf("%d requests", len(p))
	}
	tr := p[0].User
	for _, want := range []string{"/home/ana/proj", "[user] Remember that I prefer tabs in Go files.", "[tool Bash: gofmt -l .]", "[assistant] Noted: tabs in Go."} {
		if !strings.Contains(tr, want) {
			t.Errorf("prompt lacks %q:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "CLAUDE-TOOL-OUTPUT") {
		t.Error("a tool result reached the prompt")
	}

	appendJSONL(t, file,
		line("user", "10", map[string]any{"role": "user", "content": "I use pnpm, never npm."}),
		line("assistant", "11", map[string]any{"id": "msg_3", "role": "assistant", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": "pnpm it is."}}}),
	)
	out, code = w.runCmd(nil, "extract")
	if code != 0 || !strings.Contains(out, "created user-package-manager.md") {
		t.Fatalf("second extract: %d\n%s", code, out)
	}
	if p = srv.Prompts(); len(p) != 2 || strings.Contains(transcriptOf(p[1]), "tabs in Go files") {
		t.Errorf("second pass re-sent old lines:\n%s", transcriptOf(p[1]))
	}
	if churn := w.compactState().Churn; churn != 2 {
		t.Errorf("churn after two files extracted by hand: %d, want 2", churn)
	}
}

// TestExtractCodex: one pass over a Codex rollout.
func TestExtractCodex(t *testing.T) {
	w, srv := llmWorld(t, answerMemories(memJSON("create", "project", "snake-case-json", "The API speaks snake_case JSON",
		"JSON field names in the API are snake_case.\nWhy: the user said not to forget it.")))
	codexHome := filepath.Join(w.home, "codex-home")
	w.env = append(w.env, "CODEX_HOME="+codexHome)
	file := filepath.Join(codexHome, "sessions", "2025", "09", "14", "rollout-2025-09-14T10-00-00-0199b0c2-aaaa-7bbb-8ccc-ddddeeeeffff.jsonl")
	item := func(ts, typ string, payload map[string]any) map[string]any {
		return map[string]any{"timestamp": "2025-09-14T10:00:" + ts + "Z", "type": typ, "payload": payload}
	}
	appendJSONL(t, file,
		item("00", "session_meta", map[string]any{"id": "0199b0c2-aaaa-7bbb-8ccc-ddddeeeeffff", "cwd": "/home/ana/api"}),
		item("01", "response_item", map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "<environment_context>\n<cwd>/home/ana/api</cwd>\n</environment_context>"}}}),
		item("02", "event_msg", map[string]any{"type": "task_started"}),
		item("03", "response_item", map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "Don't forget: the API uses snake_case JSON."}}}),
		item("04", "response_item", map[string]any{"type": "function_call", "name": "shell", "call_id": "c1",
			"arguments": `{"command":["bash","-lc","rg -n snake_case"]}`}),
		item("05", "response_item", map[string]any{"type": "function_call_output", "call_id": "c1", "output": "CODEX-TOOL-OUTPUT"}),
		item("06", "response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{
			map[string]any{"type": "output_text", "text": "Understood: snake_case."}}}),
		item("07", "event_msg", map[string]any{"type": "task_complete"}),
	)
	out, code := w.runCmd(nil, "extract")
	if code != 0 || !strings.Contains(out, "created project-snake-case-json.md") {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	if s := w.subjects()[0]; !strings.HasPrefix(s, "memory: extract from codex session ") {
		t.Errorf("subject %q", s)
	}
	p := srv.Prompts()
	if len(p) != 1 {
		t.Fatalf("%d requests", len(p))
	}
	tr := p[0].User
	for _, want := range []string{"/home/ana/api", "[user] Don't forget: the API uses snake_case JSON.", "[tool shell: rg -n snake_case]", "[assistant] Understood: snake_case."} {
		if !strings.Contains(tr, want) {
			t.Errorf("prompt lacks %q:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "CODEX-TOOL-OUTPUT") || strings.Contains(tr, "environment_context") {
		t.Errorf("tool output or injected context reached the prompt:\n%s", tr)
	}
}

// TestExtractSinceFirstRunAndExclude: installed on a machine with older
// sessions, extraction takes only the sessions active since memoryd first
// ran there; --since takes older ones on purpose; extract.exclude leaves
// out a project folder and an agent, whatever their age.
func TestExtractSinceFirstRunAndExclude(t *testing.T) {
	w, srv := llmWorld(t, func(user string) string {
		return answerMemories(memJSON("create", "feedback", "go-tabs", "Tabs in Go files", "Indent Go files with tabs.\nWhy: asked to remember it."))("")
	})
	w.env = append(w.env, "MEMORY_EXTRACT_SINCE=install", "MEMORY_EXTRACT_EXCLUDE=~/secret, codex")
	session := func(uuid, cwd string, mtime time.Time) {
		file := filepath.Join(w.home, ".claude", "projects", strings.ReplaceAll(cwd, "/", "-"), uuid+".jsonl")
		line := func(typ, ts string, msg map[string]any) map[string]any {
			return map[string]any{"type": typ, "cwd": cwd, "sessionId": uuid, "isSidechain": false,
				"uuid": typ + ts, "timestamp": "2025-06-01T10:00:" + ts + "Z", "message": msg}
		}
		appendJSONL(t, file,
			line("user", "01", map[string]any{"role": "user", "content": "Remember that I prefer tabs in Go files."}),
			line("assistant", "02", map[string]any{"id": "msg_" + uuid, "role": "assistant", "stop_reason": "end_turn",
				"content": []any{map[string]any{"type": "text", "text": "Noted."}}}))
		if err := os.Chtimes(file, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-90 * 24 * time.Hour)
	session("11111111-1111-4111-8111-111111111111", "/home/ana/proj", old)

	// The first run: the old session is history, not extracted.
	out, code := w.runCmd(nil, "extract")
	if code != 0 || len(srv.Prompts()) != 0 {
		t.Fatalf("first extract took an old session: exit %d, %d requests\n%s", code, len(srv.Prompts()), out)
	}
	// A session in an excluded folder, and one in another, both active now.
	later := time.Now().Add(time.Minute)
	session("22222222-2222-4222-8222-222222222222", filepath.Join(w.home, "secret", "app"), later)
	session("33333333-3333-4333-8333-333333333333", "/home/ana/proj", later)
	out, code = w.runCmd(nil, "extract")
	if code != 0 || len(srv.Prompts()) != 1 || !strings.Contains(srv.Prompts()[0].User, "33333333") && !strings.Contains(out, "33333333") {
		t.Fatalf("extract after new sessions: exit %d, %d requests\n%s", code, len(srv.Prompts()), out)
	}
	if strings.Contains(out, "22222222") {
		t.Errorf("the excluded folder's session was extracted:\n%s", out)
	}
	// --since takes the old one on purpose; the excluded folder stays out.
	out, code = w.runCmd(nil, "extract", "--since", "all")
	if code != 0 || len(srv.Prompts()) != 2 || !strings.Contains(out, "11111111") || strings.Contains(out, "22222222") {
		t.Fatalf("extract --since all: exit %d, %d requests\n%s", code, len(srv.Prompts()), out)
	}
	if out, code := w.runCmd(nil, "extract", "--since", "last tuesday"); code != 2 || !strings.Contains(out, "--since: must be install, all, an age") {
		t.Errorf("a bad --since: exit %d\n%s", code, out)
	}
	if out, code := w.runCmd(nil, "extract", "--session", "codex/abc"); code == 0 || !strings.Contains(out, "extract.exclude leaves out codex") {
		t.Errorf("an excluded agent's session by name: exit %d\n%s", code, out)
	}
}
