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

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
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

// vaultWords are words of the vault fact's body that reach a model's
// request however the agent escapes its JSON.
const vaultWords = "rotate it every quarter"

// installedHooks installs memoryd for every agent in w and returns the
// prompt hooks' and Codex's session-start command lines as the agents'
// files hold them.
func installedHooks(t *testing.T, w *agentWorld) (claude, codex, codexStart string, env []string) {
	t.Helper()
	env = []string{"CODEX_HOME=" + filepath.Join(w.home, ".codex")}
	w.install(env, "--claude", "--codex", "--opencode")
	var settings struct {
		Hooks map[string][]struct{ Hooks []struct{ Command string } }
	}
	var hooks struct {
		Hooks map[string][]struct{ Hooks []struct{ Command string } }
	}
	readJSONFile(t, filepath.Join(w.home, ".codex", "hooks.json"), &hooks)
	readJSONFile(t, filepath.Join(w.home, ".claude", "settings.json"), &settings)
	one := func(groups []struct{ Hooks []struct{ Command string } }, what string) string {
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s: want one memoryd hook, got %v", what, groups)
		}
		return groups[0].Hooks[0].Command
	}
	return one(settings.Hooks["UserPromptSubmit"], "claude UserPromptSubmit"),
		one(hooks.Hooks["UserPromptSubmit"], "codex UserPromptSubmit"),
		one(hooks.Hooks["SessionStart"], "codex SessionStart"), env
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestRecallInstalledHooks drives the hooks install writes, as Claude Code
// and Codex run them: the prompt hook of each through the four cases, and
// Codex's session-start hook, which gives the session its project's index.
func TestRecallInstalledHooks(t *testing.T) {
	w := newRecallWorld(t)
	claude, codex, codexStart, _ := installedHooks(t, w)
	decode := func(out string) string { return additionalContext(t, out) }
	checkRecallHook(t, w, claude, func(s, cwd, p string) string { return hookPayload("claude-"+s, cwd, p) }, decode)
	checkRecallHook(t, w, codex, func(s, cwd, p string) string { return hookPayload("codex-"+s, cwd, p) }, decode)
	start := w.runHook(codexStart, w.appA, `{"session_id":"c1","cwd":"`+w.appA+`","hook_event_name":"SessionStart","source":"startup","model":"m","permission_mode":"default","transcript_path":null}`)
	if !strings.Contains(start, deployLine) || strings.Contains(start, billingLine) {
		t.Fatalf("Codex's SessionStart hook does not give app-a's index:\n%s", start)
	}
}

// newRecallAgentWorld is a recall world whose fake model answers "ok".
func newRecallAgentWorld(t *testing.T) *agentWorld {
	t.Helper()
	w := newRecallWorld(t)
	w.srv = llmtest.NewServer(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Text("ok") })
	return w
}

// promptWith returns the first prompt request carrying the user's prompt.
func promptWith(t *testing.T, w *agentWorld, prompt string) llmtest.Recorded {
	t.Helper()
	return firstWith(t, w.srv, "with the prompt", func(r llmtest.Recorded) bool { return strings.Contains(r.User, prompt) })
}

// TestClaudeCodeRecall runs the real `claude -p` with a prompt about a fact
// outside the session's index: the UserPromptSubmit hook brings it to the
// model, with its preface; an unrelated prompt brings nothing.
func TestClaudeCodeRecall(t *testing.T) {
	claude := needtool.Path(t, "claude")
	w := newRecallAgentWorld(t)
	w.install(nil, "--claude")

	w.agent(w.appA, w.claudeEnv(), claude, "-p", relevantPrompt)
	mustCarry(t, "the request", promptWith(t, w, relevantPrompt), vaultWords, "long-term memory (memoryd)", deployLine)

	w.agent(w.appA, w.claudeEnv(), claude, "-p", "hello there")
	mustNotCarry(t, "an unrelated prompt's request", promptWith(t, w, "hello there"), vaultWords, "facts that may bear")
}

// TestCodexRecall runs the real `codex exec`: its session starts with the
// project's index (the SessionStart hook install writes and trusts), and
// the prompt's UserPromptSubmit hook brings the fact outside it.
func TestCodexRecall(t *testing.T) {
	codex := needtool.Path(t, "codex")
	w := newRecallAgentWorld(t)
	home := w.codexHome()
	env := append(append([]string{}, w.env...), "CODEX_HOME="+home, "FAKE_API_KEY=test")
	w.install(env, "--codex")

	w.agent(w.appA, env, codex, "exec", "--skip-git-repo-check", "--ephemeral", relevantPrompt)
	r := promptWith(t, w, relevantPrompt)
	mustCarry(t, "the session's request", r, deployLine, vaultWords, "long-term memory (memoryd)")
	mustNotCarry(t, "the session's request", r, billingLine)

	w.agent(w.appA, env, codex, "exec", "--skip-git-repo-check", "--ephemeral", "hello there")
	r = promptWith(t, w, "hello there")
	mustCarry(t, "an unrelated prompt's session", r, deployLine)
	mustNotCarry(t, "an unrelated prompt's session", r, vaultWords)
}

// TestOpenCodeRecall runs the real `opencode run`: the plugin asks recall
// about the user's message and the fact reaches the system prompt.
func TestOpenCodeRecall(t *testing.T) {
	opencode := needtool.Path(t, "opencode")
	w := newRecallAgentWorld(t)
	llmtest.WriteOpenCodeConfig(t, w.home, w.srv)
	w.install(nil, "--opencode")
	env := llmtest.OpenCodeEnv(w.home)

	w.agent(w.appA, env, opencode, "run", relevantPrompt)
	mustCarry(t, "the request", promptWith(t, w, relevantPrompt), vaultWords, "long-term memory (memoryd)", deployLine)

	w.agent(w.appA, env, opencode, "run", "hello there")
	mustNotCarry(t, "an unrelated prompt's request", promptWith(t, w, "hello there"), vaultWords)
}

// TestDoctorRunsRecallHooks: doctor runs each installed hook and says so;
// a Codex hook changed by hand is reported as untrusted (Codex would skip
// it silently), with the command that fixes it.
func TestDoctorRunsRecallHooks(t *testing.T) {
	w := newRecallWorld(t)
	_, _, _, env := installedHooks(t, w)
	out, _ := w.runCmd(env, "doctor")
	for _, want := range []string{"ok       claude SessionStart hook: ran in", "ok       claude UserPromptSubmit hook: ran in",
		"ok       codex SessionStart hook: ran in", "ok       codex UserPromptSubmit hook: ran in"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not say %q:\n%s", want, out)
		}
	}
	hooks := filepath.Join(w.home, ".codex", "hooks.json")
	data, _ := os.ReadFile(hooks)
	os.WriteFile(hooks, bytes.Replace(data, []byte(`"timeout": 10`), []byte(`"timeout": 11`), 1), 0o644)
	out, _ = w.runCmd(env, "doctor")
	if !strings.Contains(out, "PROBLEM  codex SessionStart hook: not trusted") || !strings.Contains(out, "fix: memoryd install --codex") {
		t.Fatalf("doctor does not report the untrusted hook:\n%s", out)
	}
}

// TestInstallClaudeAutoMemory: install --claude turns Claude Code's own
// auto-memory off and uninstall gives back the exact bytes;
// --keep-claude-memory leaves it on.
func TestInstallClaudeAutoMemory(t *testing.T) {
	w := newAgentWorld(t, nil)
	settings := filepath.Join(w.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	before := "{\n  \"autoMemoryEnabled\": true,\n  \"theme\": \"dark\"\n}\n"
	w.write("settings.json", before, filepath.Dir(settings))
	w.install(nil, "--claude")
	data, _ := os.ReadFile(settings)
	if !strings.Contains(string(data), `"autoMemoryEnabled": false`) {
		t.Fatalf("install left auto-memory on:\n%s", data)
	}
	if out, code := w.runCmd(nil, "uninstall"); code != 0 {
		t.Fatalf("uninstall: %s", out)
	}
	if data, _ := os.ReadFile(settings); string(data) != before {
		t.Fatalf("uninstall did not give back the bytes:\n%q\nwant\n%q", data, before)
	}
	w.install(nil, "--claude", "--keep-claude-memory")
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), `"autoMemoryEnabled": true`) {
		t.Fatalf("--keep-claude-memory turned auto-memory off:\n%s", data)
	}
}
