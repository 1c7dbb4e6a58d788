package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The facts of a recall world. The index budget (index.max_lines) and nine
// newer reference facts leave the vault fact out of app-a's index, both as
// `memoryd context` shows it and as MEMORY.md and `context --project-only`
// do, so only recall can bring it; the deploy fact is in every view of the
// index, so recall never repeats it.
const (
	vaultFile = "reference-deploy-vault.md"
	vaultLine = "- [Deploy vault](reference-deploy-vault.md) — Staging deploy credentials live in the team vault"
	vaultBody = "The staging deploy key is in the vault under app-a/deploy; rotate it every quarter."
	// relevantPrompt matches vaultFact (deploy, key, staging) and
	// deployFact; unrelatedPrompt shares nothing with any fact.
	relevantPrompt  = "Where is the deploy key for staging?"
	unrelatedPrompt = "thanks, that's all"
)

// newRecallWorld is an agent world whose app-a has one fact more than its
// index shows.
func newRecallWorld(t *testing.T) *agentWorld {
	t.Helper()
	w := newAgentWorld(t, nil)
	w.writeConfig("index:\n  max_lines: 17\n")
	w.write(vaultFile, "---\nname: deploy-vault\ndescription: Staging deploy credentials live in the team vault\nmetadata:\n  type: reference\n  project: app-a\n  updated: 2020-01-01\n---\n"+vaultBody+"\n")
	for i := 1; i <= 9; i++ {
		w.write(fmt.Sprintf("reference-docs-%d.md", i), fmt.Sprintf("---\nname: docs-%d\ndescription: Design notes, part %d\nmetadata:\n  type: reference\n  project: app-a\n  updated: 2026-01-0%d\n---\nSee the wiki.\n", i, i, i))
	}
	if out, code := w.runCmd(nil, "rebuild"); code != 0 {
		t.Fatalf("rebuild: %s", out)
	}
	full, _, _ := w.runCmd2(nil, "context", "--dir", w.appA)
	split, _, _ := w.runCmd2(nil, "context", "--project-only", "--dir", w.appA)
	split = w.index() + split
	for _, ctx := range []string{full, split} {
		if strings.Contains(ctx, vaultFile) || !strings.Contains(ctx, "project-deploy.md") || !strings.Contains(ctx, coffeeLine) {
			t.Fatalf("the world's index should list the deploy fact and not the vault:\n%s", ctx)
		}
	}
	return w
}

// writeConfig writes memoryd's config file ($XDG_CONFIG_HOME/memoryd).
func (w *world) writeConfig(text string) {
	w.t.Helper()
	dir := filepath.Join(w.home, ".config", "memoryd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	w.write("config.yaml", text, dir)
}

// hookPayload is an agent's UserPromptSubmit JSON, as Claude Code and
// Codex send it.
func hookPayload(session, cwd, prompt string) string {
	b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": "/dev/null", "cwd": cwd,
		"hook_event_name": "UserPromptSubmit", "permission_mode": "default", "prompt": prompt})
	return string(b)
}

// runHook runs a hook's command line the way an agent does: through a
// shell, in the session's directory, the payload on stdin. It fails the
// test unless the command exits 0 without a word on stderr.
func (w *world) runHook(command, dir, stdin string, extra ...string) string {
	w.t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir, cmd.Env = dir, append(append([]string{}, w.env...), extra...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil || errOut.Len() > 0 {
		w.t.Fatalf("hook %s: %v\nstdout: %s\nstderr: %s", command, err, out.String(), errOut.String())
	}
	return out.String()
}

// additionalContext decodes a hook's JSON answer; "" for no answer.
func additionalContext(t *testing.T, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var v struct {
		HookSpecificOutput struct{ HookEventName, AdditionalContext string }
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.HookSpecificOutput.HookEventName != "UserPromptSubmit" {
		t.Fatalf("hook answer is not UserPromptSubmit JSON: %v\n%s", err, out)
	}
	return v.HookSpecificOutput.AdditionalContext
}

// checkRecallHook drives one installed prompt hook through the four cases
// of the issue: a relevant prompt gets the fact outside the index (with
// the preface, within the budget), an unrelated one nothing, a repeated
// one in the same session nothing new, and a broken config nothing at all
// with exit 0. decode turns the hook's standard output into the text the
// model sees.
func checkRecallHook(t *testing.T, w *agentWorld, command string, payload func(session, cwd, prompt string) string, decode func(string) string) {
	t.Helper()
	got := decode(w.runHook(command, w.appA, payload("s1", w.appA, relevantPrompt)))
	if !strings.HasPrefix(got, "From the user's long-term memory (memoryd)") || !strings.Contains(got, vaultLine) || !strings.Contains(got, vaultBody) {
		t.Fatalf("a relevant prompt did not inject the fact outside the index:\n%s", got)
	}
	if strings.Contains(got, "project-deploy.md") || len(got) > 1500 {
		t.Fatalf("the injection repeats the index or passes the budget (%d bytes):\n%s", len(got), got)
	}
	if out := w.runHook(command, w.appA, payload("s1", w.appA, unrelatedPrompt)); out != "" {
		t.Fatalf("an unrelated prompt injected:\n%s", out)
	}
	if out := w.runHook(command, w.appA, payload("s1", w.appA, relevantPrompt)); out != "" {
		t.Fatalf("a repeated prompt injected the same fact again:\n%s", out)
	}
	if got := decode(w.runHook(command, w.appA, payload("s2", w.appA, relevantPrompt))); !strings.Contains(got, vaultLine) {
		t.Fatalf("another session did not get the fact:\n%s", got)
	}
	cfg := filepath.Join(w.home, ".config", "memoryd", "config.yaml")
	good, _ := os.ReadFile(cfg)
	w.writeConfig("index:\n  max_lines: [broken\n")
	if out := w.runHook(command, w.appA, payload("s3", w.appA, relevantPrompt)); out != "" {
		t.Fatalf("a broken config printed:\n%s", out)
	}
	os.WriteFile(cfg, good, 0o644)
	log, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "memoryd", "recall.log"))
	if !strings.Contains(string(log), "config.yaml:1") {
		t.Fatalf("the log does not say why recall added nothing:\n%s", log)
	}
}

// TestRecallCommand drives `memoryd recall` as a prompt hook runs it.
func TestRecallCommand(t *testing.T) {
	w := newRecallWorld(t)
	command := shellWordTest(binPath) + " recall"
	checkRecallHook(t, w, command, hookPayload, func(out string) string { return additionalContext(t, out) })
	checkRecallHook(t, newRecallWorld(t), command+" --project-only", hookPayload, func(out string) string { return additionalContext(t, out) })

	// Plain text for a caller that names no hook event (the OpenCode
	// plugin); an unreadable input or a time-out: nothing, exit 0.
	text := w.runHook(command, w.appA, `{"session_id":"oc","cwd":"`+w.appA+`","prompt":"`+relevantPrompt+`"}`)
	if !strings.Contains(text, vaultLine) || strings.HasPrefix(text, "{") {
		t.Fatalf("text answer:\n%s", text)
	}
	if out := w.runHook(command, w.appA, "not json"); out != "" {
		t.Fatalf("unreadable input: %q", out)
	}
	if out := w.runHook(command, w.appA, hookPayload("s9", w.appA, relevantPrompt), "MEMORY_RECALL_TIMEOUT_MS=1"); out != "" {
		t.Fatalf("a time-out printed: %q", out)
	}
	if out := w.runHook(command, w.appA, hookPayload("s10", w.appA, relevantPrompt), "MEMORY_RECALL_MAX_BYTES=0"); out != "" {
		t.Fatalf("recall.max_bytes 0 printed: %q", out)
	}
}

// shellWordTest quotes s for sh.
func shellWordTest(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
