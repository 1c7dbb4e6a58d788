package main

import (
	"bufio"
	"bytes"
	"context"
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
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/extractor"
	"github.com/memoryd/memoryd/llm/llmtest"
	"github.com/memoryd/memoryd/state"
	"github.com/memoryd/memoryd/transcript"
)

// The extraction tests drive the real OpenCode (`opencode run`, offline, in
// the world's HOME) against llmtest's fake server, which answers OpenCode's
// chat requests and memoryd's extraction requests; memoryd's carry the
// header X-Memoryd-Task: extract.

// slowPatience bounds waits that include an OpenCode run or a watcher
// retrying on a folder that appears late.
const slowPatience = 120 * time.Second

func waitLong(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(slowPatience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", slowPatience, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func needOpenCode(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("opencode"); err != nil {
		t.Skip("opencode not on PATH")
	}
}

// ocWorld is a world with OpenCode configured to use the fake LLM, which
// memoryd uses too.
type ocWorld struct {
	*world
	srv  *llmtest.Server
	proj string // the project OpenCode runs in

	mu      sync.Mutex
	extract func(user string) string // answers extraction requests (the user prompt)
}

func newOCWorld(t *testing.T) *ocWorld {
	t.Helper()
	needOpenCode(t)
	w := &ocWorld{world: newWorld(t)}
	w.proj = filepath.Join(w.home, "proj")
	os.MkdirAll(w.proj, 0o755)
	w.srv = llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		if r.Task != "extract" {
			return llmtest.Text("Noted.")
		}
		w.mu.Lock()
		f := w.extract
		w.mu.Unlock()
		if f == nil {
			return llmtest.Text(`{"memories": []}`)
		}
		return llmtest.Text(f(r.User))
	})
	llmtest.WriteOpenCodeConfig(t, w.home, w.srv)
	w.env = append(w.env,
		"MEMORY_LLM_PROVIDER=openai",
		"MEMORY_LLM_BASE_URL="+w.srv.OpenAIURL(),
		"MEMORY_COMPACT_ENABLED=0",
		"MEMORY_EXTRACT_DEBOUNCE_MS=500",
	)
	return w
}

func (w *ocWorld) answer(f func(user string) string) {
	w.mu.Lock()
	w.extract = f
	w.mu.Unlock()
}

// answerMemories answers every extraction with the given memories.
func answerMemories(mems ...map[string]string) func(string) string {
	return func(string) string {
		b, _ := json.Marshal(map[string]any{"memories": mems})
		return string(b)
	}
}

func memJSON(action, typ, name, desc, body string) map[string]string {
	return map[string]string{"action": action, "type": typ, "name": name, "description": desc, "body": body}
}

// extractions are memoryd's extraction requests so far.
func (w *ocWorld) extractions() []llmtest.Recorded {
	var out []llmtest.Recorded
	for _, r := range w.srv.Prompts() {
		if r.Task == "extract" {
			out = append(out, r)
		}
	}
	return out
}

// opencode runs `opencode run` with the prompt on stdin, continuing session
// when it is not empty, and returns the session's id.
func (w *ocWorld) opencode(session, prompt string) string {
	w.t.Helper()
	return runOpenCode(w.t, w.home, w.proj, session, prompt)
}

func runOpenCode(t testing.TB, home, dir, session, prompt string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), slowPatience)
	defer cancel()
	args := []string{"run", "--pure", "--format", "json"}
	if session != "" {
		args = append(args, "--session", session)
	}
	cmd := exec.CommandContext(ctx, "opencode", args...)
	cmd.Env, cmd.Dir = llmtest.OpenCodeEnv(home), dir
	cmd.Stdin = strings.NewReader(prompt)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("opencode run: %v\n%s\n%s", err, out, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct{ SessionID string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.SessionID != "" {
			return ev.SessionID
		}
	}
	t.Fatalf("no session id in the output of opencode run:\n%s\n%s", out, stderr.String())
	return ""
}

func (w *ocWorld) stateDir() string {
	sd, err := state.Dir(filepath.Join(w.home, ".local", "state"), w.mem)
	if err != nil {
		w.t.Fatal(err)
	}
	return sd
}

// watermarks reads memoryd's extraction watermarks.
func (w *ocWorld) watermarks() map[string]transcript.Watermark {
	m := map[string]transcript.Watermark{}
	state.ReadJSON(w.stateDir(), extractor.WatermarksFile, &m)
	return m
}

func (w *ocWorld) hasFile(name string) bool {
	_, err := os.Stat(filepath.Join(w.mem, name))
	return err == nil
}

func (w *ocWorld) readMem(name string) string {
	data, _ := os.ReadFile(filepath.Join(w.mem, name))
	return string(data)
}

// transcriptOf is the transcript part of an extraction request's prompt.
func transcriptOf(r llmtest.Recorded) string {
	_, after, _ := strings.Cut(r.User, "<transcript>")
	return after
}

// TestExtractOpenCodeDaemon: a preference stated in OpenCode becomes a
// memory file, an index line and a commit; a second turn sends only the new
// messages; a restarted daemon sends nothing again.
func TestExtractOpenCodeDaemon(t *testing.T) {
	w := newOCWorld(t)
	w.answer(func(user string) string {
		if strings.Contains(user, "fish") {
			return answerMemories(memJSON("create", "user", "shell", "Uses the fish shell", "Uses fish as the interactive shell on every machine."))("")
		}
		return answerMemories(memJSON("create", "feedback", "prefers-tabs", "Prefers tabs over spaces for indentation",
			"Indent with tabs, never spaces, in every language.\nWhy: the user asked for it explicitly."))("")
	})
	p := w.startDaemon()

	id := w.opencode("", "From now on, always indent code with tabs, never spaces.")
	waitLong(t, "the memory file", func() bool { return w.hasFile("feedback-prefers-tabs.md") })
	waitLong(t, "the extraction commit", func() bool {
		return w.subjects()[0] == "memory: extract from opencode session "+id
	})
	if !strings.Contains(w.index(), "- [Prefers tabs](feedback-prefers-tabs.md) — Prefers tabs over spaces for indentation\n") {
		t.Errorf("index:\n%s", w.index())
	}
	if got := w.show("memory/feedback-prefers-tabs.md"); !strings.Contains(got, "Indent with tabs") {
		t.Errorf("committed file: %q", got)
	}
	ex := w.extractions()
	if len(ex) != 1 || !strings.Contains(transcriptOf(ex[0]), "[user] From now on, always indent code with tabs") ||
		!strings.Contains(transcriptOf(ex[0]), "[assistant] Noted.") || !strings.Contains(ex[0].User, w.proj) {
		t.Fatalf("extraction requests: %d\n%+v", len(ex), ex)
	}
	waitFor(t, "the watermark", func() bool { _, ok := w.watermarks()["opencode/"+id]; return ok })

	// A second turn in the same session: only it is sent.
	w.opencode(id, "Also, my shell is fish.")
	waitLong(t, "the second memory", func() bool { return w.hasFile("user-shell.md") })
	ex = w.extractions()
	if len(ex) != 2 {
		t.Fatalf("%d extraction requests after the second turn", len(ex))
	}
	tr := transcriptOf(ex[1])
	if !strings.Contains(tr, "[user] Also, my shell is fish.") || strings.Contains(tr, "always indent code with tabs") {
		t.Errorf("second transcript holds more than the new turn:\n%s", tr)
	}
	if !strings.Contains(ex[1].User, "Indent with tabs, never spaces") {
		t.Errorf("second request lacks the existing memory's body:\n%s", ex[1].User)
	}
	waitLong(t, "the second extraction commit", func() bool { return strings.Contains(w.show("memory/MEMORY.md"), "user-shell.md") })
	p.stop(t)

	// A restart re-sends nothing: the next request holds only the next turn.
	p = w.startDaemon()
	w.answer(answerMemories())
	w.opencode(id, "Thanks, that is all for today.")
	waitLong(t, "the third extraction", func() bool { return len(w.extractions()) >= 3 })
	ex = w.extractions()
	tr = transcriptOf(ex[2])
	if len(ex) != 3 || !strings.Contains(tr, "that is all for today") || strings.Contains(tr, "fish") {
		t.Errorf("after a restart: %d requests, last transcript:\n%s", len(ex), tr)
	}
	p.stop(t)
	if st := w.status(); st.Extraction.LastError != "" {
		t.Errorf("extraction error in status: %s", st.Extraction.LastError)
	}
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
	w.fsck()
}

// TestExtractOpenCodeKeywordFastPath: with a debounce of ten minutes, a
// message asking to remember something is extracted as soon as the reply is
// finished.
func TestExtractOpenCodeKeywordFastPath(t *testing.T) {
	w := newOCWorld(t)
	w.answer(answerMemories(memJSON("create", "reference", "staging-dashboard", "Grafana dashboard for staging",
		"Staging latency and errors: https://grafana.example.com/d/staging-overview")))
	w.opencode("", "Hello there.") // OpenCode's database exists before the daemon starts
	w.startDaemon("MEMORY_EXTRACT_DEBOUNCE_MS=600000")
	id := w.opencode("", "Remember: the staging dashboard is https://grafana.example.com/d/staging-overview")
	waitLong(t, "the memory asked for", func() bool { return w.hasFile("reference-staging-dashboard.md") })
	ex := w.extractions()
	if len(ex) != 1 || !strings.Contains(transcriptOf(ex[0]), "staging dashboard") {
		t.Fatalf("%d extraction requests: %+v", len(ex), ex)
	}
	waitLong(t, "the commit", func() bool { return w.subjects()[0] == "memory: extract from opencode session "+id })
}

// TestExtractOpenCodeSecretNeverSent: an API key typed into OpenCode reaches
// OpenCode's own provider (the fake), but never memoryd's extraction request,
// a memory file, the repository or memoryd's state.
func TestExtractOpenCodeSecretNeverSent(t *testing.T) {
	w := newOCWorld(t)
	key := "sk-proj-" + strings.Repeat("Q7vLm2Xp", 6)
	w.answer(answerMemories(
		memJSON("create", "user", "openai-key", "The user's OpenAI key", "The OpenAI API key is "+key+" for scripts."),
		memJSON("create", "project", "deploy-fridays", "Deploys happen on Fridays only", "Deploy only on Fridays.\nWhy: the user said so.")))
	id := w.opencode("", "My OpenAI key is "+key+" - also remember that we deploy on Fridays only.")
	out, code := w.runCmd(nil, "extract")
	if code != 0 || !strings.Contains(out, "created project-deploy-fridays.md") || !strings.Contains(out, "secret") {
		t.Fatalf("extract: %d\n%s", code, out)
	}
	ex := w.extractions()
	if len(ex) != 1 {
		t.Fatalf("%d extraction requests", len(ex))
	}
	if strings.Contains(string(ex[0].Raw), key) || !strings.Contains(ex[0].User, extractor.Redacted) {
		t.Fatalf("memoryd sent the key:\n%s", ex[0].User)
	}
	if w.hasFile("user-openai-key.md") {
		t.Error("a memory holding the key was written")
	}
	for _, dir := range []string{w.mem, w.stateDir()} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(key[:16])) {
					t.Errorf("%s holds the key", p)
				}
			}
			return nil
		})
	}
	if log := w.git(w.notes, "log", "-p", "--all"); strings.Contains(log, key[:16]) {
		t.Error("the repository's history holds the key")
	}
	if _, ok := w.watermarks()["opencode/"+id]; !ok {
		t.Error("no watermark after the pass")
	}
}

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
