package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
	"github.com/memoryd/memoryd/internal/secrets"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/transcript"
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
	needtool.Path(t, "opencode")
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

func (w *world) stateDir() string {
	sd, err := state.Dir(filepath.Join(w.home, ".local", "state"), w.mem)
	if err != nil {
		w.t.Fatal(err)
	}
	return sd
}

// watermarks reads memoryd's extraction watermarks.
func (w *ocWorld) watermarks() map[string]transcript.Watermark {
	m := map[string]transcript.Watermark{}
	state.ReadJSON(w.stateDir(), state.WatermarksFile, &m)
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
	if strings.Contains(string(ex[0].Raw), key) || !strings.Contains(ex[0].User, secrets.Redacted) {
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
