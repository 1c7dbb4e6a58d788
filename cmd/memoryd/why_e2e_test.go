package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWhyClaudeAndCodex: memoryd why shows a fact's sources, its commits
// and the transcript excerpt it came from (redacted as sent), for Claude
// Code and Codex transcripts, and says plainly when the session is gone.
func TestWhyClaudeAndCodex(t *testing.T) {
	w, _ := llmWorld(t, func(user string) string {
		if strings.Contains(user, "snake_case") {
			return answerMemories(memJSON("create", "project", "snake-case-json", "The API speaks snake_case JSON", "JSON field names in the API are snake_case."))("")
		}
		return answerMemories(memJSON("create", "feedback", "go-tabs", "Tabs in Go files", "Indent Go files with tabs, as gofmt does."))("")
	})
	const uuid = "5d6e7f80-1111-4222-8333-444455556666"
	claudeFile := filepath.Join(w.home, ".claude", "projects", "-home-ana-proj", uuid+".jsonl")
	line := func(typ, ts string, msg map[string]any) map[string]any {
		return map[string]any{"type": typ, "cwd": "/home/ana/proj", "sessionId": uuid, "isSidechain": false,
			"uuid": typ + ts, "timestamp": "2025-06-01T10:00:" + ts + "Z", "message": msg}
	}
	appendJSONL(t, claudeFile,
		line("user", "01", map[string]any{"role": "user", "content": "Remember that I prefer tabs in Go files. My password is Tr0ub4dor&3x, by the way."}),
		line("assistant", "02", map[string]any{"id": "msg_1", "role": "assistant", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": "Noted: tabs in Go."}}}))
	codexHome := filepath.Join(w.home, "codex-home")
	w.env = append(w.env, "CODEX_HOME="+codexHome)
	item := func(ts, typ string, payload map[string]any) map[string]any {
		return map[string]any{"timestamp": "2025-09-14T10:00:" + ts + "Z", "type": typ, "payload": payload}
	}
	appendJSONL(t, filepath.Join(codexHome, "sessions", "2025", "09", "14", "rollout-2025-09-14T10-00-00-0199b0c2-aaaa-7bbb-8ccc-ddddeeeeffff.jsonl"),
		item("00", "session_meta", map[string]any{"id": "0199b0c2-aaaa-7bbb-8ccc-ddddeeeeffff", "cwd": "/home/ana/api"}),
		item("03", "response_item", map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "Don't forget: the API uses snake_case JSON."}}}),
		item("06", "response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{
			map[string]any{"type": "output_text", "text": "Understood: snake_case."}}}),
		item("07", "event_msg", map[string]any{"type": "task_complete"}))
	if out, code := w.runCmd(nil, "extract"); code != 0 {
		t.Fatalf("extract: %d\n%s", code, out)
	}

	out, code := w.runCmd(nil, "why", "go-tabs")
	for _, want := range []string{"# feedback-go-tabs.md", "sources:", "- claude-code, session -home-ana-proj/" + uuid + ".jsonl",
		"cwd /home/ana/proj", "commits:", "memory: extract from claude session", "(as sent to the model):",
		"| [user] Remember that I prefer tabs in Go files.", "[REDACTED]"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("why go-tabs lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Tr0ub4dor") {
		t.Errorf("the password reached the output:\n%s", out)
	}
	if strings.Contains(out, "level=INFO") {
		t.Errorf("why prints the daemon's notices:\n%s", out)
	}
	out, _ = w.runCmd(nil, "why", "snake-case-json")
	if !strings.Contains(out, "- codex, session ") || !strings.Contains(out, "| [user] Don't forget: the API uses snake_case JSON.") {
		t.Errorf("why snake-case-json:\n%s", out)
	}
	os.Remove(claudeFile)
	out, _ = w.runCmd(nil, "why", "feedback-go-tabs.md")
	if !strings.Contains(out, "the session is gone") {
		t.Errorf("after the session was deleted:\n%s", out)
	}
}
