package compactor

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/memtest"
	"github.com/memoryd/memoryd/internal/protocol"
	"github.com/memoryd/memoryd/internal/stamp"
)

// TestMain gives git a known identity and no user or system configuration.
func TestMain(m *testing.M) { gittest.Main(m) }

// git runs the git CLI in dir and returns its trimmed output.
var git = gittest.Run

// mem is the text of a memory file.
var mem = memtest.Fact

// fixture is a notes repository with a memory folder, a fake LLM server and
// a Compactor wired to both through the real openai provider.
type fixture struct {
	t        *testing.T
	root     string // the notes repository
	dir      string // root/memory
	stateDir string
	srv      *llmtest.Server
	logs     *memtest.Log
	opts     Options
}

// newFixture makes the repository with files (name → content) committed,
// and a fake LLM answering with handler.
func newFixture(t *testing.T, files map[string]string, handler func(llmtest.Recorded) llmtest.Reply) *fixture {
	t.Helper()
	f := &fixture{t: t, root: t.TempDir(), stateDir: t.TempDir(), logs: &memtest.Log{}}
	f.dir = filepath.Join(f.root, "memory")
	os.MkdirAll(f.dir, 0o755)
	git(t, f.root, "init", "-q")
	f.write("../README.md", "# notes\n")
	for name, content := range files {
		f.write(name, content)
	}
	// As the daemon keeps it: reserved files and an index that matches the
	// files, committed.
	if _, err := index.WriteAttributes(f.dir); err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Ensure(f.dir); err != nil {
		t.Fatal(err)
	}
	st := index.NewStore(f.dir)
	if err := st.Scan(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.WriteIndex(); err != nil {
		t.Fatal(err)
	}
	git(t, f.root, "add", "-A")
	git(t, f.root, "commit", "-q", "-m", "initial")
	f.srv = llmtest.NewServer(t, handler)
	f.opts = Options{StateDir: f.stateDir, Model: "openai/test-model",
		Logger: f.logs.Logger()}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("compactor logs:\n%s", f.logs.String())
		}
	})
	return f
}

// folder is the fixture's write transaction over repo (none when nil),
// whose Begin waits up to wait for the write lock.
func (f *fixture) folder(repo *gitstore.Repo, wait time.Duration) *folder.Folder {
	return openFolder(f.t, folder.Options{Dir: f.dir, StateDir: f.stateDir, WithoutRepo: repo == nil, Wait: wait})
}

// openFolder opens the folder opts name, or fails tb.
func openFolder(tb testing.TB, opts folder.Options) *folder.Folder {
	tb.Helper()
	f, err := folder.Open(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// compactor returns a Compactor on the fixture with the real openai client,
// writing through a transaction over the fixture's repository.
func (f *fixture) compactor(timeout time.Duration, change ...func(*Options)) *Compactor {
	f.t.Helper()
	client, err := llm.New(llm.Options{Provider: "openai", BaseURL: f.srv.OpenAIURL(), Timeout: timeout,
		MaxRetries: 2, Logger: f.opts.Logger})
	if err != nil {
		f.t.Fatal(err)
	}
	repo, err := gitstore.Open(f.dir, gitstore.Options{Logger: f.opts.Logger})
	if err != nil {
		f.t.Fatal(err)
	}
	opts := f.opts
	opts.LLM, opts.Folder = client, f.folder(repo, 5*time.Second)
	for _, c := range change {
		c(&opts)
	}
	return New(opts)
}

// run runs one pass with a generous timeout.
func (f *fixture) run(c *Compactor) (*Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return c.Compact(ctx)
}

func (f *fixture) write(name, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(name string) string {
	data, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(name)))
	if err != nil {
		return ""
	}
	return string(data)
}

func (f *fixture) exists(name string) bool {
	_, err := os.Lstat(filepath.Join(f.dir, filepath.FromSlash(name)))
	return err == nil
}

// superseded reports whether name is still in the folder, marked
// superseded by by, and listed in no index.
func (f *fixture) superseded(name, by string) bool {
	f.t.Helper()
	if !f.exists(name) {
		return false
	}
	m, err := index.Parse(name, []byte(f.read(name)))
	return err == nil && m.SupersededBy == by && m.SupersededAt != "" &&
		!strings.Contains(f.read(index.IndexFile), "("+name+")")
}

// files returns every file under the repository (without .git), by path.
func (f *fixture) files() map[string]string {
	f.t.Helper()
	out := map[string]string{}
	filepath.WalkDir(f.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(f.root, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	return out
}

func (f *fixture) head() string { return git(f.t, f.root, "rev-parse", "HEAD") }

func (f *fixture) subjects() []string {
	return strings.Split(git(f.t, f.root, "log", "--format=%s"), "\n")
}

// plan answers the ops as a JSON plan.
func plan(ops ...map[string]any) llmtest.Reply {
	if ops == nil {
		ops = []map[string]any{}
	}
	return llmtest.JSON(map[string]any{"ops": ops})
}

// store is a small store used by many tests.
func store() map[string]string {
	return map[string]string{
		"feedback-tabs.md":        mem("feedback", "tabs", "Prefers tabs", "Use tabs for indentation.\nWhy: said so in review."),
		"feedback-tabs-always.md": mem("feedback", "tabs-always", "Tabs always", "Always indent with tabs, never spaces."),
		"project-old-deadline.md": mem("project", "old-deadline", "Release in May", "The release is due in May.\nWhy: planning meeting."),
		"project-new-deadline.md": mem("project", "new-deadline", "Release moved to July", "The release moved to July.\nWhy: scope grew."),
		"user-email.md":           mem("user", "email", "work mail", "ana@example.com"),
		"user-editor-a.md":        mem("user", "editor-a", "Uses vim", "Ana uses vim."),
		"user-editor-b.md":        mem("user", "editor-b", "Uses emacs", "Ana uses emacs."),
		"reference-dash.md":       mem("reference", "dash", "Staging dashboard", "https://grafana.example.com/d/staging"),
		"reference-wiki.md":       mem("reference", "wiki", "Team wiki", "https://wiki.example.com/team"),
		"user-shell.md":           mem("user", "shell", "Uses zsh", "Ana uses zsh with oh-my-zsh."),
		"feedback-tests.md":       mem("feedback", "tests", "Run tests first", "Run the tests before committing.\nWhy: broke main once."),
		"project-freeze.md":       "---\nname: freeze\ndescription: Billing freeze\nmetadata:\n  type: project\n  readonly: true\n---\nNo billing schema changes until June.\n",
	}
}

// goodOps is a plan with one op of each kind on store().
func goodOps() []map[string]any {
	return []map[string]any{
		{"op": "merge", "files": []string{"feedback-tabs.md", "feedback-tabs-always.md"},
			"into": map[string]any{"type": "feedback", "name": "indent-with-tabs", "description": "Indent with tabs, never spaces",
				"body": "Always indent with tabs, never spaces.\nWhy: said so in review."}, "reason": "same preference"},
		{"op": "delete", "file": "project-old-deadline.md", "reason": "superseded by project-new-deadline.md"},
		{"op": "rewrite", "file": "user-email.md", "description": "Work email is ana@example.com",
			"body": "Ana's work email is ana@example.com.", "reason": "clearer"},
		{"op": "flag", "files": []string{"user-editor-a.md", "user-editor-b.md"}, "note": "vim or emacs?"},
	}
}

// unstamped is stamp.Strip.
var unstamped = stamp.Strip
