package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// More extraction tests against the real OpenCode: tool calls, deleted
// sessions, dry runs and memoryd's own sessions.

// TestExtractOpenCodeToolCall: OpenCode runs a bash tool the fake asked for;
// the extraction request names the tool call and its command, never its
// output.
func TestExtractOpenCodeToolCall(t *testing.T) {
	w := newOCWorld(t)
	front := toolCallFront(t, w.srv, "RUN-A-TOOL", "echo tool-output-xyz")
	cfg := (&llmtest.Server{URL: front.URL}).OpenCodeConfig()
	os.WriteFile(filepath.Join(llmtest.OpenCodeConfigDir(w.home), "opencode.json"), cfg, 0o644)
	id := w.opencode("", "RUN-A-TOOL please, and note that I like short commit messages.")
	if data, err := os.ReadFile(filepath.Join(w.proj, "tool-ran.txt")); err != nil || !strings.Contains(string(data), "tool-output-xyz") {
		t.Fatalf("the tool did not run: %q %v", data, err)
	}
	out, code := w.runCmd(nil, "extract", "--session", id)
	if code != 0 {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	ex := w.extractions()
	if len(ex) != 1 {
		t.Fatalf("%d extraction requests", len(ex))
	}
	tr := transcriptOf(ex[0])
	if !strings.Contains(tr, "[tool bash: echo tool-output-xyz > tool-ran.txt]") || !strings.Contains(tr, "[user] RUN-A-TOOL please") {
		t.Errorf("transcript:\n%s", tr)
	}
	if strings.Count(tr, "tool-output-xyz") != 1 {
		t.Errorf("the tool's output reached the transcript:\n%s", tr)
	}
}

// toolCallFront is an OpenAI-compatible front for OpenCode: a chat request
// whose conversation has the marker and no tool result yet is answered with
// a streamed bash tool call; everything else goes to srv (and is recorded
// there). llmtest has no tool calls of its own.
func toolCallFront(t *testing.T, srv *llmtest.Server, marker, command string) *httptest.Server {
	target, _ := url.Parse(srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.Header.Get("X-Memoryd-Task") != "" || !bytes.Contains(body, []byte(marker)) ||
			bytes.Contains(body, []byte(`"role":"tool"`)) || bytes.Contains(body, []byte("title generator")) {
			proxy.ServeHTTP(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "text/event-stream")
		send := func(delta map[string]any, finish any) {
			b, _ := json.Marshal(map[string]any{"id": "call", "object": "chat.completion.chunk", "created": 1, "model": llmtest.ModelID,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
			fmt.Fprintf(rw, "data: %s\n\n", b)
		}
		args, _ := json.Marshal(map[string]string{"command": command + " > tool-ran.txt", "description": "Run the command"})
		send(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]any{"name": "bash", "arguments": ""}}}}, nil)
		send(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": string(args)}}}}, nil)
		send(map[string]any{}, "tool_calls")
		fmt.Fprint(rw, "data: [DONE]\n\n")
	}))
	t.Cleanup(front.Close)
	return front
}

// TestExtractOpenCodeDeletedSession: a session deleted in OpenCode loses its
// watermark, and neither the daemon nor `memoryd extract` treats it as an
// error.
func TestExtractOpenCodeDeletedSession(t *testing.T) {
	w := newOCWorld(t)
	w.answer(answerMemories(memJSON("create", "user", "editor", "Edits in helix", "Uses helix as the editor for all code.")))
	id := w.opencode("", "Remember that I edit everything in helix.")
	keep := w.opencode("", "Hello, just saying hi.")
	if out, code := w.runCmd(nil, "extract"); code != 0 || !w.hasFile("user-editor.md") {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	if m := w.watermarks(); len(m) != 2 {
		t.Fatalf("watermarks %v", m)
	}
	del := exec.Command("opencode", "session", "delete", id)
	del.Env, del.Dir = llmtest.OpenCodeEnv(w.home), w.proj
	if out, err := del.CombinedOutput(); err != nil {
		t.Fatalf("opencode session delete: %v\n%s", err, out)
	}
	out, code := w.runCmd(nil, "extract", "--session", "opencode/"+id)
	if code != 0 || !strings.Contains(out, "no longer exists") {
		t.Fatalf("extract of a deleted session: %d\n%s", code, out)
	}
	if _, ok := w.watermarks()["opencode/"+id]; ok {
		t.Fatal("watermark kept after extract met the deleted session")
	}

	// The daemon's first listing drops the watermarks of sessions deleted
	// while it was not looking.
	w.opencode(keep, "One more thing: nothing to keep here.")
	id2 := w.opencode("", "Another session, soon deleted.")
	if _, code := w.runCmd(nil, "extract"); code != 0 {
		t.Fatal("extract failed")
	}
	del = exec.Command("opencode", "session", "delete", id2)
	del.Env, del.Dir = llmtest.OpenCodeEnv(w.home), w.proj
	if out, err := del.CombinedOutput(); err != nil {
		t.Fatalf("opencode session delete: %v\n%s", err, out)
	}
	p := w.startDaemon()
	waitLong(t, "the deleted session's watermark to go", func() bool {
		_, gone := w.watermarks()["opencode/"+id2]
		return !gone
	})
	if _, ok := w.watermarks()["opencode/"+keep]; !ok {
		t.Error("the live session's watermark went too")
	}
	waitLong(t, "the daemon's session listing", func() bool { return w.status().Extraction.LastPolledAny })
	p.stop(t)
	if st := w.status(); st.Extraction.LastError != "" || strings.Contains(p.output(), "extraction failed") {
		t.Errorf("an error about the deleted session: %q\n%s", st.Extraction.LastError, p.output())
	}
}

// TestExtractDryRun prints what would be written and changes nothing.
func TestExtractDryRun(t *testing.T) {
	w := newOCWorld(t)
	w.answer(answerMemories(memJSON("create", "feedback", "small-commits", "Prefers small commits",
		"Make small, focused commits with short messages.\nWhy: the user reviews them one by one.")))
	w.opencode("", "I prefer small commits, keep that in mind.")
	head := w.head()
	out, code := w.runCmd(nil, "extract", "--dry-run")
	if code != 0 || !strings.Contains(out, "would create feedback-small-commits.md") || !strings.Contains(out, "| Make small, focused commits") {
		t.Fatalf("dry run: %d\n%s", code, out)
	}
	if w.hasFile("feedback-small-commits.md") || w.head() != head || len(w.watermarks()) != 0 {
		t.Fatal("the dry run changed something")
	}
	out, code = w.runCmd(nil, "extract")
	if code != 0 || !strings.Contains(out, "created feedback-small-commits.md") || len(w.extractions()) != 2 {
		t.Fatalf("extract after the dry run: %d\n%s", code, out)
	}
	out, _ = w.runCmd(nil, "extract")
	if !strings.Contains(out, "0 session(s) extracted") || len(w.extractions()) != 2 {
		t.Errorf("a pass with nothing new called the LLM or wrote:\n%s", out)
	}
}

// TestExtractNeverReadsOwnSessions: with OpenCode as memoryd's provider, the
// extraction's own OpenCode session lives in memoryd's state folder, never
// in the user's database, and is never extracted from; a session that ran
// in the state folder is skipped too.
func TestExtractNeverReadsOwnSessions(t *testing.T) {
	w := newOCWorld(t)
	w.env = append(w.env, llmtest.OpenCodeEnv(w.home)...)
	w.env = append(w.env, "MEMORY_LLM_PROVIDER=opencode", "MEMORY_EXTRACT_MODEL="+llmtest.ModelRef, "MEMORY_LLM_TIMEOUT_MS=120000")
	w.answer(answerMemories(memJSON("create", "user", "tea", "Drinks tea, not coffee", "Offer tea rather than coffee in examples and small talk.")))
	w.opencode("", "Remember that I drink tea, not coffee.")
	inState := filepath.Join(w.stateDir(), "opencode", "work", "elsewhere")
	os.MkdirAll(inState, 0o755)
	runOpenCode(t, w.home, inState, "", "Remember that this session must never be read.")

	out, code := w.runCmd(nil, "extract")
	if code != 0 || !strings.Contains(out, "created user-tea.md") || !strings.Contains(out, "1 session(s) extracted") {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	ex := w.extractions()
	if len(ex) != 1 || !strings.Contains(transcriptOf(ex[0]), "drink tea") {
		t.Fatalf("%d extraction requests", len(ex))
	}
	if _, err := os.Stat(filepath.Join(w.stateDir(), "opencode", "opencode.db")); err != nil {
		t.Errorf("memoryd's own OpenCode database: %v", err)
	}
	list := exec.Command("opencode", "session", "list", "--format", "json")
	list.Env, list.Dir = llmtest.OpenCodeEnv(w.home), w.proj
	data, err := list.Output()
	var sessions []struct{ ID, Directory string }
	if err != nil || json.Unmarshal(data, &sessions) != nil || len(sessions) != 2 {
		t.Errorf("the user's sessions: %v %s", err, data)
	}
	out, code = w.runCmd(nil, "extract")
	if code != 0 || !strings.Contains(out, "0 session(s) extracted") || len(w.extractions()) != 1 {
		t.Errorf("second extract: %d, %d requests\n%s", code, len(w.extractions()), out)
	}
}

// TestExtractUsesOpenCodesOwnModel: with OpenCode as the provider and no
// extract.model, extraction uses the user's OpenCode small_model; the
// built-in default (openai/gpt-5-mini) is a provider most OpenCode setups
// lack, and the first extraction used to fail on it.
func TestExtractUsesOpenCodesOwnModel(t *testing.T) {
	w := newOCWorld(t)
	w.env = append(w.env, llmtest.OpenCodeEnv(w.home)...)
	w.env = append(w.env, "MEMORY_LLM_PROVIDER=opencode", "MEMORY_LLM_TIMEOUT_MS=120000")
	w.answer(answerMemories(memJSON("create", "user", "tea", "Drinks tea, not coffee", "Offer tea rather than coffee in examples and small talk.")))
	w.opencode("", "Remember that I drink tea, not coffee.")
	out, code := w.runCmd(nil, "extract")
	if code != 0 || !strings.Contains(out, "created user-tea.md") {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	if ex := w.extractions(); len(ex) != 1 {
		t.Fatalf("%d extraction requests", len(ex))
	}
}

// TestDoctorChecksTheModel: doctor says whether the provider offers the
// model (no paid call), and doctor --llm makes one real call and reports
// its latency and tokens.
func TestDoctorChecksTheModel(t *testing.T) {
	w := newOCWorld(t)
	w.env = append(w.env, llmtest.OpenCodeEnv(w.home)...)
	w.env = append(w.env, "MEMORY_LLM_PROVIDER=opencode", "MEMORY_LLM_TIMEOUT_MS=120000")
	out, _ := w.runCmd(nil, "doctor")
	if !strings.Contains(out, "ok       llm model: "+llmtest.ModelRef) {
		t.Fatalf("doctor with OpenCode's own model:\n%s", out)
	}
	out, _ = w.runCmd([]string{"MEMORY_EXTRACT_MODEL=openai/gpt-5-mini"}, "doctor")
	if !strings.Contains(out, "PROBLEM  llm model: opencode does not offer openai/gpt-5-mini") ||
		!strings.Contains(out, "fix: set extract.model (and compact.model) to one the provider lists: opencode models") {
		t.Fatalf("doctor with a model OpenCode lacks:\n%s", out)
	}
	before := len(w.srv.Requests())
	out, _ = w.runCmd(nil, "doctor", "--llm")
	if !strings.Contains(out, "ok       llm call: "+llmtest.ModelRef+" answered in ") || len(w.srv.Requests()) <= before {
		t.Fatalf("doctor --llm:\n%s", out)
	}
}
