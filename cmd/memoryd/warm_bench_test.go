package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkWarmReaders measures the readers an agent runs — `memoryd
// search`, `memoryd recall` (as the prompt hook) and an MCP server's
// memory_search — at 10,000 facts, each against its baseline in the same
// run: `memoryd version` for a process, the same server's tools/list for
// MCP. First without a daemon (each reader opens the search index), then
// with one (each asks the daemon's warm index over its socket). It also
// times the first search of a fresh store, with no search index yet.
// The bounds: with a daemon, search and recall ≤ version + 10 ms;
// without, ≤ + 40 ms; memory_search p50 ≤ tools/list + 5 ms, p99 ≤ + 20 ms;
// a fresh store's first search ≤ 500 ms.
//
//	go test -run '^$' -bench WarmReaders -benchtime 1x ./cmd/memoryd/
func BenchmarkWarmReaders(b *testing.B) {
	const runs = 40
	for b.Loop() {
		w := newWorld(b)
		writeFacts(w, 10000)
		w.write("project-migrations.md", "---\nname: migrations\ndescription: How migrations run\nmetadata:\n  type: project\n---\nNever run migration 0042 twice; see src/db/migrate.go.\n")
		if out, code := w.runCmd(nil, "rebuild"); code != 0 {
			b.Fatalf("rebuild: %s", out)
		}
		t0 := time.Now()
		if out, code := w.runCmd(nil, "search", "widget4242"); code != 0 || !strings.Contains(out, "fact-04242") {
			b.Fatalf("first search: %s", out)
		}
		b.ReportMetric(msOf(time.Since(t0)), "first-search-fresh-store-ms")
		// Committed, so that the daemon's first commit of 10,000 files does
		// not run beside the measures.
		w.git(w.notes, "add", "-A")
		w.git(w.notes, "commit", "-q", "-m", "facts")
		for _, up := range []bool{false, true} {
			label := "no-daemon"
			var p *proc
			if up {
				label = "daemon"
				p = w.startDaemon()
				waitFor(b, "the warm socket", func() bool { return warmAnswers(w) })
			}
			readerMetrics(b, w, runs, label)
			mcpMetrics(b, w, label)
			if up {
				toolHookMetrics(b, w, runs)
			}
			if p != nil {
				p.stop(b)
			}
		}
	}
}

// readerMetrics reports search and recall processes over version.
func readerMetrics(b *testing.B, w *world, runs int, label string) {
	version := medianRun(b, w, runs, func(int) []string { return []string{"version"} })
	search := medianRun(b, w, runs, func(i int) []string { return []string{"search", fmt.Sprintf("widget%d", 3+i*97*10%9990)} })
	recall := medianStdin(b, w, runs, []string{"recall"}, func(i int) string {
		return hookPayload(fmt.Sprintf("%s-%d", label, i), w.home, fmt.Sprintf("which fact mentions widget%d and gadget7?", 5001+i*10))
	}, func(out string) {
		if !strings.Contains(out, "widget") {
			b.Fatalf("recall %s found nothing:\n%s", label, out)
		}
	})
	// A prompt of English words no fact has: each is looked for by its
	// related words (WordNet), the most a recall reads of it.
	related := medianStdin(b, w, runs, []string{"recall"}, func(i int) string {
		return hookPayload(fmt.Sprintf("%s-related-%d", label, i), w.home,
			fmt.Sprintf("which physician prescribed the pills, and did the herb garden or the airplane trip mention widget%d?", 5001+i*10))
	}, func(out string) {
		if !strings.Contains(out, "widget") {
			b.Fatalf("recall %s found nothing:\n%s", label, out)
		}
	})
	b.ReportMetric(version, label+"-version-ms")
	b.ReportMetric(search-version, label+"-search-over-version-ms")
	b.ReportMetric(recall-version, label+"-recall-over-version-ms")
	b.ReportMetric(related-version, label+"-recall-related-over-version-ms")
}

// mcpMetrics reports one MCP server's memory_search p50 and p99 over its
// tools/list, calls interleaved.
func mcpMetrics(b *testing.B, w *world, label string) {
	const calls = 200
	cs, _ := w.mcpSession(w.home, "bench")
	defer cs.Close()
	ctx := context.Background()
	var list, search []time.Duration
	for i := range calls {
		t0 := time.Now()
		if _, err := cs.ListTools(ctx, &mcp.ListToolsParams{}); err != nil {
			b.Fatal(err)
		}
		list = append(list, time.Since(t0))
		t0 = time.Now()
		out, _ := callTool(b, cs, "memory_search", map[string]any{"query": fmt.Sprintf("widget%d", i*37), "project": "all"})
		search = append(search, time.Since(t0))
		if !strings.Contains(out, fmt.Sprintf("fact-%05d", i*37)) {
			b.Fatalf("search %d: %s", i, out)
		}
	}
	slices.Sort(list)
	slices.Sort(search)
	p := func(d []time.Duration, q int) float64 { return msOf(d[len(d)*q/100]) }
	b.ReportMetric(p(list, 50), label+"-mcp-list-p50-ms")
	b.ReportMetric(p(search, 50)-p(list, 50), label+"-mcp-search-p50-over-list-ms")
	b.ReportMetric(p(search, 99)-p(list, 99), label+"-mcp-search-p99-over-list-ms")
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// warmAnswers reports whether the daemon of w listens on its warm socket
// and has built its index (a search through it does not fall back).
func warmAnswers(w *world) bool {
	if _, err := os.Stat(filepath.Join(w.stateDir(), "warm.sock")); err != nil {
		return false
	}
	out, _ := w.runCmd([]string{"MEMORY_LOG_LEVEL=debug"}, "search", "widget1")
	return !strings.Contains(out, "searching without the daemon")
}

// toolHookMetrics reports the tool-call hook (`memoryd recall-tool`, as
// Claude Code's PreToolUse runs it, a new session each run) over version:
// on a file no fact is about, and on one a fact names. The issue's
// bounds: ≤ version + 5 ms with nothing to add, ≤ + 15 ms with a hit.
func toolHookMetrics(b *testing.B, w *world, runs int) {
	repo := filepath.Join(w.home, "app")
	os.MkdirAll(filepath.Join(repo, "src", "db"), 0o755)
	w.git(repo, "init", "-q")
	payload := func(label, file string) func(int) string {
		return func(i int) string {
			data, _ := json.Marshal(map[string]any{"session_id": fmt.Sprintf("%s-%d", label, i), "cwd": repo,
				"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(repo, file)}})
			return string(data)
		}
	}
	version := medianRun(b, w, runs, func(int) []string { return []string{"version"} })
	miss := medianStdin(b, w, runs, []string{"recall-tool"}, payload("miss", "src/db/other.go"), func(out string) {
		if out != "" {
			b.Fatalf("recall-tool on an uncited file: %s", out)
		}
	})
	hit := medianStdin(b, w, runs, []string{"recall-tool"}, payload("hit", "src/db/migrate.go"), func(out string) {
		if !strings.Contains(out, "0042") {
			b.Fatalf("recall-tool on a cited file: %q", out)
		}
	})
	b.ReportMetric(miss-version, "tool-hook-nothing-over-version-ms")
	b.ReportMetric(hit-version, "tool-hook-hit-over-version-ms")
}
