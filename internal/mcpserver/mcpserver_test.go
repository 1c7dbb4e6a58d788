package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/gittest"
)

func TestMain(m *testing.M) { gittest.Main(m) }

// connect starts the server on a real memory folder in a git repository
// and returns a client session named as Claude Code names itself.
func connect(t *testing.T, search SearchFunc) (*mcp.ClientSession, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "memory")
	os.MkdirAll(dir, 0o755)
	gittest.Run(t, root, "init", "-q")
	gittest.Run(t, root, "commit", "-q", "--allow-empty", "-m", "start")
	f, err := folder.Open(folder.Options{Dir: dir, StateDir: t.TempDir()})
	if err != nil || f.Repo() == nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir, Project: "proj", Version: "test", Search: search,
		Writer: func(who string) *facts.Writer {
			return facts.New(facts.Options{Folder: f, Who: who, Model: true})
		}})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "2"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, dir
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestToolsOffered(t *testing.T) {
	cs, _ := connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	for _, name := range []string{"memory_search", "memory_read", "memory_save", "memory_forget"} {
		tool := got[name]
		if tool == nil || tool.Description == "" || tool.InputSchema == nil {
			t.Fatalf("%s missing or without a description or schema: %+v", name, tool)
		}
	}
	if !got["memory_search"].Annotations.ReadOnlyHint || !got["memory_read"].Annotations.ReadOnlyHint || got["memory_save"].Annotations.ReadOnlyHint {
		t.Error("readOnlyHint must be set on search and read only")
	}
}

func TestSaveReadForget(t *testing.T) {
	var asked string
	cs, dir := connect(t, func(ctx context.Context, q Query) ([]Hit, error) {
		asked = strings.Join(append([]string{q.Words}, q.Phrasings...), "+") + "|" + q.Project
		return []Hit{{File: "feedback-prefers-tabs.md", Title: "Prefers tabs", Description: "Tabs, not spaces", Snippet: "Use tabs"}}, nil
	})
	out, isErr := call(t, cs, "memory_save", map[string]any{"type": "feedback", "name": "prefers-tabs",
		"description": "Tabs, not spaces", "body": "Use tabs for indentation.\nWhy: said so."})
	if isErr || !strings.Contains(out, "created feedback-prefers-tabs.md") {
		t.Fatalf("save: %v %s", isErr, out)
	}
	msg := gittest.Run(t, filepath.Dir(dir), "log", "-1", "--format=%s")
	if msg != "memory: add feedback-prefers-tabs.md (mcp: claude-code)" {
		t.Fatalf("commit %q", msg)
	}
	out, isErr = call(t, cs, "memory_read", map[string]any{"file": "prefers-tabs"})
	if isErr || !strings.Contains(out, "Use tabs for indentation.") {
		t.Fatalf("read: %v %s", isErr, out)
	}
	// The indexes the agent is shown can be read by name too.
	os.WriteFile(filepath.Join(dir, "MEMORY.alpha-app.md"), []byte("# Memory — alpha-app\n"), 0o644)
	for file, want := range map[string]string{"MEMORY.md": "feedback-prefers-tabs.md", "MEMORY.alpha-app.md": "# Memory — alpha-app"} {
		if out, isErr := call(t, cs, "memory_read", map[string]any{"file": file}); isErr || !strings.Contains(out, want) {
			t.Fatalf("read %s: %v %s", file, isErr, out)
		}
	}
	out, isErr = call(t, cs, "memory_search", map[string]any{"query": "tabs"})
	if isErr || asked != "tabs|proj" || !strings.Contains(out, "feedback-prefers-tabs.md — Prefers tabs") {
		t.Fatalf("search: %v %q %s", isErr, asked, out)
	}
	// Several phrasings: blank and repeated ones dropped, query first.
	out, isErr = call(t, cs, "memory_search", map[string]any{"query": "tabs", "queries": []string{"indentation", " ", "tabs", "tab or space"}})
	if isErr || asked != "tabs+indentation+tab or space|proj" || !strings.Contains(out, "feedback-prefers-tabs.md") {
		t.Fatalf("search with queries: %v %q %s", isErr, asked, out)
	}
	if _, isErr = call(t, cs, "memory_search", map[string]any{"queries": []string{"indentation"}}); isErr || asked != "indentation|proj" {
		t.Fatalf("search with queries alone: %v %q", isErr, asked)
	}
	out, isErr = call(t, cs, "memory_forget", map[string]any{"file": "feedback-prefers-tabs.md", "reason": "switched"})
	if isErr || !strings.Contains(out, "forgot feedback-prefers-tabs.md") {
		t.Fatalf("forget: %v %s", isErr, out)
	}
}

// TestBadCallsAreToolErrors: bad arguments, secrets, path tricks and
// readonly targets come back as tool errors the model can read; nothing is
// written outside the folder and the server keeps serving.
func TestBadCallsAreToolErrors(t *testing.T) {
	cs, dir := connect(t, nil)
	os.WriteFile(filepath.Join(dir, "user-shell.md"), []byte("---\nname: shell\ndescription: Shell\nmetadata:\n  type: user\n  readonly: true\n---\nUses zsh.\n"), 0o644)
	outside := filepath.Join(filepath.Dir(filepath.Dir(dir)), "escaped.md")
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_save", map[string]any{"type": "user", "name": "../../escaped", "description": "d", "body": "b"}, "lower-case words"},
		{"memory_save", map[string]any{"type": "secret", "name": "x", "description": "d", "body": "b"}, "not one of"},
		{"memory_save", map[string]any{"type": "reference", "name": "aws", "description": "AWS", "body": "key AKIAIOSFODNN7EXAMPLE secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}, "holds a secret"},
		{"memory_save", map[string]any{"type": "user", "name": "shell", "description": "Fish", "body": "Uses fish.", "replace": true}, "is readonly"},
		{"memory_save", map[string]any{"type": "user"}, ""},
		{"memory_read", map[string]any{"file": "../../../etc/passwd"}, "no such fact"},
		{"memory_forget", map[string]any{"file": "user-shell.md", "reason": "old"}, "is readonly"},
		{"memory_forget", map[string]any{"file": "user-shell.md"}, ""},
		{"memory_search", map[string]any{"query": " "}, "query is empty"},
		{"memory_search", map[string]any{"queries": []string{" ", ""}}, "query is empty"},
		{"memory_search", map[string]any{}, "query is empty"},
	}
	for _, c := range cases {
		out, isErr := call(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(out, c.want) {
			t.Errorf("%s %v: error=%v %q, want a tool error with %q", c.tool, c.args, isErr, out, c.want)
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("a file was written outside the memory folder")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "user-shell.md")); !strings.Contains(string(b), "zsh") {
		t.Fatal("the readonly fact changed")
	}
}
