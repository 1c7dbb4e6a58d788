package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession starts `memoryd mcp` in dir with the world's environment and
// connects to it as the named client; it returns the session and the time
// from starting the process to the initialize answer.
func (w *world) mcpSession(dir, client string) (*mcp.ClientSession, time.Duration) {
	w.t.Helper()
	cmd := exec.Command(binPath, "mcp")
	cmd.Env, cmd.Dir = w.env, dir
	c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	t0 := time.Now()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	took := time.Since(t0)
	if err != nil {
		w.t.Fatalf("memoryd mcp: %v", err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs, took
}

// callTool calls a tool and returns its text and whether it is a tool error.
func callTool(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestMCPCommand drives `memoryd mcp` as an agent would, without a daemon:
// the project comes from the working directory, search finds facts written
// before it started and after, a save is committed by the server itself.
func TestMCPCommand(t *testing.T) {
	w := newWorld(t)
	w.write("user-coffee.md", memoryFile("user", "coffee", "Drinks oat-milk flat whites", "Never sugar."))
	w.write("project-deploy.md", "---\nname: deploy\ndescription: Deploys with make ship\nmetadata:\n  type: project\n  project: shop-app\n---\nRun make ship from the repo root.\n")
	w.write("project-other.md", "---\nname: other\ndescription: Deploys with kubectl apply\nmetadata:\n  type: project\n  project: elsewhere\n---\nkubectl.\n")
	repo := filepath.Join(w.home, "src", "Shop_App")
	os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
	w.git(repo, "init", "-q")

	cs, _ := w.mcpSession(filepath.Join(repo, "sub"), "claude-code")
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"memory_forget", "memory_read", "memory_save", "memory_search"}) {
		t.Fatalf("tools %v", names)
	}

	out, isErr := callTool(t, cs, "memory_search", map[string]any{"query": "deploys"})
	if isErr || !strings.Contains(out, "project-deploy.md") || strings.Contains(out, "project-other.md") {
		t.Fatalf("search in shop-app: %v\n%s", isErr, out)
	}
	out, _ = callTool(t, cs, "memory_search", map[string]any{"query": "deploys", "project": "all"})
	if !strings.Contains(out, "project-other.md") {
		t.Fatalf("search all:\n%s", out)
	}

	out, isErr = callTool(t, cs, "memory_save", map[string]any{"type": "feedback", "name": "short-commits",
		"description": "Likes short commit messages", "body": "Keep commit subjects under 50 characters."})
	if isErr || !strings.Contains(out, "created feedback-short-commits.md") {
		t.Fatalf("save: %s", out)
	}
	if got := w.subjects()[0]; got != "memory: add feedback-short-commits.md (mcp: claude-code)" {
		t.Fatalf("commit %q", got)
	}
	out, _ = callTool(t, cs, "memory_search", map[string]any{"query": "commit subjects"})
	if !strings.Contains(out, "feedback-short-commits.md") {
		t.Fatalf("a fact saved through the server is not found:\n%s", out)
	}
	w.write("reference-wiki.md", memoryFile("reference", "wiki", "The team wiki is at wiki.example.com", "Wiki."))
	out, _ = callTool(t, cs, "memory_search", map[string]any{"query": "wiki"})
	if !strings.Contains(out, "reference-wiki.md") {
		t.Fatalf("a file written by hand while the server runs is not found:\n%s", out)
	}
	out, isErr = callTool(t, cs, "memory_read", map[string]any{"file": "coffee"})
	if isErr || !strings.Contains(out, "Never sugar.") {
		t.Fatalf("read: %s", out)
	}
	if out, isErr = callTool(t, cs, "memory_search", map[string]any{"query": "?!"}); !isErr || !strings.Contains(out, "no words") {
		t.Fatalf("a query without words: %v %s", isErr, out)
	}
}

// TestMCPCommandBadFolder: a missing memory folder is a clear failure at
// start, not a server that fails every call.
func TestMCPCommandBadFolder(t *testing.T) {
	w := newWorld(t)
	out, code := w.runCmd([]string{"MEMORY_DIR=" + filepath.Join(w.home, "nowhere")}, "mcp")
	if code != 1 || !strings.Contains(out, "does not exist") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// writeFacts writes n facts; every tenth names a project.
func writeFacts(w *world, n int) {
	for i := range n {
		name := fmt.Sprintf("fact-%05d", i)
		front := fmt.Sprintf("---\nname: %s\ndescription: Fact %d about topic%d and widget%d\nmetadata:\n  type: reference\n", name, i, i%97, i)
		if i%10 == 0 {
			front += "  project: proj" + fmt.Sprint(i%7) + "\n"
		}
		w.write("reference-"+name+".md", front+"---\nThe body of fact "+fmt.Sprint(i)+" mentions gadget"+fmt.Sprint(i%13)+".\n")
	}
}

// BenchmarkMCPStart measures, at 10,000 facts, the time from starting
// `memoryd mcp` to its initialize answer (p50, p99), then a memory_search
// round trip: the first (which builds the search index from the files, as
// on a machine where no daemon ever ran), and warm ones (p50, p99).
//
//	go test -run '^$' -bench MCPStart -benchtime 1x ./cmd/memoryd/
func BenchmarkMCPStart(b *testing.B) {
	const starts, searches = 50, 200
	for b.Loop() {
		w := newWorld(b)
		writeFacts(w, 10000)
		var start []time.Duration
		for range starts {
			cs, took := w.mcpSession(w.home, "bench")
			start = append(start, took)
			cs.Close()
		}
		cs, _ := w.mcpSession(w.home, "bench")
		t0 := time.Now()
		if out, _ := callTool(b, cs, "memory_search", map[string]any{"query": "widget4242"}); !strings.Contains(out, "fact-04242") {
			b.Fatalf("search: %s", out)
		}
		first := time.Since(t0)
		var lat []time.Duration
		for i := range searches {
			t0 := time.Now()
			out, _ := callTool(b, cs, "memory_search", map[string]any{"query": fmt.Sprintf("widget%d", i*37), "project": "all"})
			lat = append(lat, time.Since(t0))
			if !strings.Contains(out, fmt.Sprintf("fact-%05d", i*37)) {
				b.Fatalf("search %d: %s", i, out)
			}
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		slices.Sort(start)
		slices.Sort(lat)
		b.ReportMetric(ms(start[len(start)/2]), "start-p50-ms")
		b.ReportMetric(ms(start[len(start)*99/100]), "start-p99-ms")
		b.ReportMetric(ms(first), "first-search-ms")
		b.ReportMetric(ms(lat[len(lat)/2]), "search-p50-ms")
		b.ReportMetric(ms(lat[len(lat)*99/100]), "search-p99-ms")
	}
}
