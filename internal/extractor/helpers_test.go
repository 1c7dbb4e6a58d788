package extractor

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/transcript"
)

// TestMain gives git a known identity and no user or system configuration.
func TestMain(m *testing.M) { gittest.Main(m) }

// ocDB writes an OpenCode database with OpenCode's real schema (dumped from
// OpenCode 1.18.33 by the transcript package) through its own connection.
type ocDB struct {
	t     testing.TB
	path  string
	db    *sql.DB
	clock int64 // Unix ms of the next message
}

func newOCDB(t testing.TB, dir string) *ocDB {
	t.Helper()
	schema, err := os.ReadFile("../transcript/testdata/opencode-1.18.33-schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "opencode.db")
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	o := &ocDB{t: t, path: path, db: db, clock: 1_700_000_000_000}
	o.exec(string(schema))
	o.exec(`INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES ('global', '/', 'git', 1, 1, '[]')`)
	return o
}

func (o *ocDB) exec(q string, args ...any) {
	o.t.Helper()
	if _, err := o.db.Exec(q, args...); err != nil {
		o.t.Fatalf("%v\n%.300s", err, q)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type obj = map[string]any

// session adds a session that ran in dir.
func (o *ocDB) session(id, dir string) {
	o.t.Helper()
	o.clock++
	o.exec(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
		VALUES (?, 'global', 'slug', ?, 'a title', '1.18.33', ?, ?)`, id, dir, o.clock, o.clock)
}

// turn adds a user message and a finished assistant reply with the given
// parts (text strings, or obj parts such as tool calls).
func (o *ocDB) turn(session, user string, reply ...any) {
	o.t.Helper()
	o.clock += 10
	uid := fmt.Sprintf("msg_%d_u", o.clock)
	o.message(session, uid, obj{"role": "user", "time": obj{"created": o.clock}, "agent": "build"})
	o.part(session, uid, 0, obj{"type": "text", "text": user})
	o.clock += 10
	aid := fmt.Sprintf("msg_%d_a", o.clock)
	o.message(session, aid, obj{"role": "assistant", "time": obj{"created": o.clock, "completed": o.clock + 5},
		"finish": "stop", "mode": "build", "modelID": "fake-model", "providerID": "fake"})
	for i, p := range reply {
		switch p := p.(type) {
		case string:
			o.part(session, aid, i, obj{"type": "text", "text": p})
		case obj:
			o.part(session, aid, i, p)
		}
	}
	o.exec(`UPDATE session SET time_updated = ? WHERE id = ?`, o.clock+5, session)
}

func (o *ocDB) message(session, id string, data obj) {
	o.t.Helper()
	o.exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
		id, session, o.clock, o.clock, js(data))
}

func (o *ocDB) part(session, msg string, i int, data obj) {
	o.t.Helper()
	o.exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
		fmt.Sprintf("prt_%s_%03d", msg, i), msg, session, o.clock, o.clock, js(data))
}

func (o *ocDB) deleteSession(id string) {
	o.t.Helper()
	o.exec(`DELETE FROM part WHERE session_id = ?`, id)
	o.exec(`DELETE FROM message WHERE session_id = ?`, id)
	o.exec(`DELETE FROM session WHERE id = ?`, id)
}

func toolCall(tool string, input obj) obj {
	return obj{"type": "tool", "tool": tool, "callID": "call_1", "state": obj{"status": "completed",
		"input": input, "output": "SECRET-TOOL-OUTPUT", "title": tool}}
}

// git runs the git CLI in dir.
var git = gittest.Run

// fakeLLM answers with a function and counts and records the calls.
type fakeLLM struct {
	mu     sync.Mutex
	reqs   []llm.Request
	answer func(req llm.Request) (string, error)
}

func (f *fakeLLM) completer() *llm.Fake {
	return &llm.Fake{CompleteFunc: func(ctx context.Context, req llm.Request) (llm.Response, error) {
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		answer := f.answer
		f.mu.Unlock()
		if answer == nil {
			return llm.Response{Text: `{"memories": []}`}, nil
		}
		text, err := answer(req)
		return llm.Response{Text: text}, err
	}}
}

func (f *fakeLLM) calls() []llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.Request(nil), f.reqs...)
}

func (f *fakeLLM) set(answer func(req llm.Request) (string, error)) {
	f.mu.Lock()
	f.answer = answer
	f.mu.Unlock()
}

// answerWith answers every request with the given memories.
func answerWith(mems ...obj) func(llm.Request) (string, error) {
	return func(llm.Request) (string, error) {
		return js(obj{"memories": mems}), nil
	}
}

func mem(action, typ, name, desc, body string) obj {
	return obj{"action": action, "type": typ, "name": name, "description": desc, "body": body}
}

// env is one test world: a notes repository with a memory folder, a state
// folder, an OpenCode database and an extractor over it.
type env struct {
	t     testing.TB
	notes string
	mem   string
	state string
	db    *ocDB
	llm   *fakeLLM
	repo  *gitstore.Repo
	x     *Extractor
	src   transcript.Source
}

func newEnv(t testing.TB, opts ...func(*Options)) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, notes: filepath.Join(root, "notes"), state: filepath.Join(root, "state"), llm: &fakeLLM{}}
	e.mem = filepath.Join(e.notes, "memory")
	os.MkdirAll(e.mem, 0o755)
	git(t, e.notes, "init", "-q")
	os.WriteFile(filepath.Join(e.notes, "README.md"), []byte("notes\n"), 0o644)
	git(t, e.notes, "add", "README.md")
	git(t, e.notes, "commit", "-q", "-m", "initial")
	var err error
	if e.repo, err = gitstore.Open(e.mem, gitstore.Options{}); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(root, "opencode")
	os.MkdirAll(dataDir, 0o755)
	e.db = newOCDB(t, dataDir)
	src, err := transcript.OpenOpenCode(e.db.path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	e.src = src
	o := Options{Folder: e.folder(), StateDir: e.state, Model: "test/model"}
	for _, f := range opts {
		f(&o)
	}
	e.x = New(o, Deps{LLM: e.llm.completer(), Repo: e.repo, Sources: transcript.FixedSources(src)})
	return e
}

// folder is the env's write transaction; Begin waits a short while for
// the write lock, so that a test of a held lock is quick.
func (e *env) folder() *folder.Folder {
	f, err := folder.Open(folder.Options{Dir: e.mem, StateDir: e.state, WithoutRepo: e.repo == nil, Wait: 300 * time.Millisecond})
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

func (e *env) write(name, content string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.mem, name), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// writeByModel writes a file and commits it as an extraction would, so
// that its text counts as a model's (facts.HandLines), not a person's.
func (e *env) writeByModel(name, content string) {
	e.t.Helper()
	e.write(name, content)
	git(e.t, e.notes, "add", "memory/"+name)
	git(e.t, e.notes, "commit", "-q", "-m", "memory: extract from opencode session ses_0")
}

func (e *env) read(name string) string {
	data, _ := os.ReadFile(filepath.Join(e.mem, name))
	return string(data)
}

// files lists the memory folder's markdown files other than MEMORY.md and
// PROTOCOL.md (which every transaction writes when missing).
func (e *env) files() []string {
	ents, _ := os.ReadDir(e.mem)
	var out []string
	for _, d := range ents {
		if strings.HasSuffix(d.Name(), ".md") && d.Name() != "MEMORY.md" && d.Name() != "PROTOCOL.md" {
			out = append(out, d.Name())
		}
	}
	return out
}

func (e *env) subjects() []string {
	return strings.Split(git(e.t, e.notes, "log", "--format=%s"), "\n")
}

func memoryFile(typ, name, desc, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\nmetadata:\n  type: %s\n---\n%s\n", name, desc, typ, body)
}
