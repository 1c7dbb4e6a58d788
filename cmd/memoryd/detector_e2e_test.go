package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAddTimeRangeAndSentenceSecrets (issue 28, finding 6): `memoryd add`
// of a fact that quotes memoryd's own provenance — a range of message
// times, a session file, a cite with its blob — succeeds and is committed;
// a fact that tells a password in a sentence is refused and nothing of it
// is committed.
func TestAddTimeRangeAndSentenceSecrets(t *testing.T) {
	w := newWorld(t)
	add := func(name, body string) (string, int) {
		out, errOut, code := w.runIn(w.home, "", nil, "add", "--type", "project", "--name", name, "--description", "Where the facts of the deploy came from", body)
		return out + errOut, code
	}
	body := "The deploy facts came from messages: 2026-11-27T23:43:23Z..2026-11-27T23:45:01Z of the session " +
		"2026/11/27/rollout-2026-11-27T23-40-00-0199b0c2-1111-7222-8333-444455556666.jsonl, citing internal/secrets/secrets.go@3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39."
	if out, code := add("provenance", body); code != 0 {
		t.Fatalf("add of a fact with a time range: %d\n%s", code, out)
	}
	if got := w.show("memory/project-provenance.md"); !strings.Contains(got, "2026-11-27T23:43:23Z..2026-11-27T23:45:01Z") {
		t.Fatalf("the fact was not committed:\n%s", got)
	}
	for name, sentence := range map[string]string{
		"router": "Das Passwort für den Router ist Tr0ub4dor&3xyz",
		"wifi":   "WiFi WPA2 key: Tr0ub4dor&3xyz",
		"totp":   "TOTP seed JBSWY3DPEHPK3PXP",
		"nas":    "SSH into nas01 as admin with hunter2Nas",
	} {
		out, code := add(name, "Access to the office network. "+sentence)
		if code == 0 || !strings.Contains(out, "secret") {
			t.Errorf("add of %q: %d\n%s", sentence, code, out)
		}
	}
	if log := w.git(w.notes, "log", "-p", "--all"); strings.Contains(log, "Tr0ub4dor") || strings.Contains(log, "JBSWY3DP") || strings.Contains(log, "hunter2Nas") {
		t.Fatal("a secret told in a sentence reached the history")
	}
}

// TestCodexExtractionCommittedDoctorGreen (issue 28, finding 6): a fact
// extracted from a Codex session — its provenance a rollout file and a
// range of message times — is committed, and doctor finds no secret in it.
func TestCodexExtractionCommittedDoctorGreen(t *testing.T) {
	// Committed, synced to the remote, and doctor green (issue 28, finding 6).
	w, _ := llmWorld(t, answerMemories(memJSON("create", "project", "snake-case-json", "The API speaks snake_case JSON",
		"JSON field names in the API are snake_case.\nWhy: the user said not to forget it.")))
	codexHome := filepath.Join(w.home, "codex-home")
	w.env = append(w.env, "CODEX_HOME="+codexHome)
	file := filepath.Join(codexHome, "sessions", "2026", "11", "27", "rollout-2026-11-27T23-40-00-0199b0c2-aaaa-7bbb-8ccc-ddddeeeeffff.jsonl")
	item := func(ts, typ string, payload map[string]any) map[string]any {
		return map[string]any{"timestamp": "2026-11-27T23:" + ts + "Z", "type": typ, "payload": payload}
	}
	appendJSONL(t, file,
		item("40:00", "session_meta", map[string]any{"id": "0199b0c2-aaaa-7bbb-8ccc-ddddeeeeffff", "cwd": "/home/ana/api"}),
		item("43:23", "response_item", map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "Don't forget: the API uses snake_case JSON."}}}),
		item("45:01", "response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{
			map[string]any{"type": "output_text", "text": "Understood: snake_case."}}}),
	)
	// The notes repository has a remote (a bare repository on disk): the
	// extracted fact must reach it, not stay held on this machine.
	remote := filepath.Join(w.home, "remote.git")
	w.git(w.home, "init", "-q", "--bare", remote)
	w.git(w.notes, "remote", "add", "origin", remote)
	w.git(w.notes, "push", "-q", "-u", "origin", "HEAD")
	out, code := w.runCmd(nil, "extract")
	if code != 0 || !strings.Contains(out, "created project-snake-case-json.md") {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	fact := w.show("memory/project-snake-case-json.md")
	if !strings.Contains(fact, "agent: codex") || !strings.Contains(fact, "messages: 2026-11-27T23:43:23Z..2026-11-27T23:45:01Z") {
		t.Fatalf("the extracted fact was not committed with its provenance:\n%s", fact)
	}
	if out, code := w.runCmd(nil, "sync"); code != 0 {
		t.Fatalf("memoryd sync: %d\n%s", code, out)
	}
	if got := w.git(remote, "show", "HEAD:memory/project-snake-case-json.md"); !strings.Contains(got, "agent: codex") {
		t.Fatalf("the remote has no extracted fact:\n%s", got)
	}
	out, _ = w.runCmd(nil, "doctor")
	if !strings.Contains(out, "ok       secrets: ") || strings.Contains(out, "PROBLEM  secrets") || strings.Contains(out, "holds a secret") {
		t.Errorf("doctor:\n%s", out)
	}
	if out, _ = w.runCmd(nil, "status"); strings.Contains(out, "holds a secret") {
		t.Errorf("status:\n%s", out)
	}
}
