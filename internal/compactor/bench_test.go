package compactor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/llm"
)

// benchStore writes a synthetic store of n facts (one in ten with a
// near-duplicate) into a new committed repository and returns the memory
// folder and the store's size in bytes.
func benchStore(b *testing.B, n int) (dir string, size int) {
	b.Helper()
	root := b.TempDir()
	dir = filepath.Join(root, "memory")
	os.MkdirAll(dir, 0o755)
	files, _ := synthStore(n, 10)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		size += len(content)
	}
	git(b, root, "init", "-q")
	// No background gc: with 10,000 loose objects git would start one, and
	// it would still be writing when the temporary folder is removed.
	git(b, root, "config", "gc.auto", "0")
	git(b, root, "config", "maintenance.auto", "false")
	git(b, root, "add", "-A")
	git(b, root, "commit", "-q", "-m", "initial")
	return dir, size
}

// countingLLM is an instant in-process model that records what it is sent
// and answers with answer(prompt).
type countingLLM struct {
	mu     sync.Mutex
	calls  int
	chars  int
	sends  map[string]int // file → times its text was sent
	answer func(prompt string) string
}

func (c *countingLLM) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.chars += len(req.System) + len(req.Prompt)
	for rest := req.Prompt; ; {
		i := strings.Index(rest, `<memory file="`)
		if i < 0 {
			break
		}
		rest = rest[i+len(`<memory file="`):]
		c.sends[rest[:strings.IndexByte(rest, '"')]]++
	}
	return llm.Response{Text: c.answer(req.Prompt)}, nil
}

func (c *countingLLM) report(b *testing.B, passes, size int) {
	most := 0
	for _, n := range c.sends {
		most = max(most, n/passes)
	}
	b.ReportMetric(float64(c.calls)/float64(passes), "calls/pass")
	b.ReportMetric(float64(c.chars)/float64(passes), "chars/pass")
	b.ReportMetric(float64(c.chars)/float64(passes)/float64(size), "sent/store")
	b.ReportMetric(float64(most), "max-sends/file")
}

// BenchmarkPlan measures a pass whose plan is empty: scan, dedupe,
// batching, prompts, parsing and validation, everything but the model and
// git writes (the model answers at once, in process).
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			dir, size := benchStore(b, n)
			m := &countingLLM{sends: map[string]int{}, answer: func(string) string { return `{"ops": []}` }}
			sd := b.TempDir()
			c := New(Options{Folder: openFolder(b, folder.Options{Dir: dir, StateDir: sd, WithoutRepo: true}), StateDir: sd, Model: "m", LLM: m})
			passes := 0
			for b.Loop() {
				if _, err := c.Plan(b.Context()); err != nil && !strings.Contains(err.Error(), "nothing") {
					b.Fatal(err)
				}
				passes++
			}
			m.report(b, passes, size)
		})
	}
}

// BenchmarkCompact measures whole passes that change one file each: lock,
// scan, plan, checkpoint, apply, index rebuild and the compaction commit
// through the git CLI. The model answers at once, in process, so the time
// is all spent outside the LLM.
func BenchmarkCompact(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			dir, size := benchStore(b, n)
			pass := 0
			m := &countingLLM{sends: map[string]int{}, answer: func(prompt string) string {
				if !strings.Contains(prompt, `file="user-fact-00000.md"`) {
					return `{"ops": []}`
				}
				return fmt.Sprintf(`{"ops": [{"op": "rewrite", "file": "user-fact-00000.md", "body": "version %d", "reason": "bench"}]}`, pass)
			}}
			sd := b.TempDir()
			c := New(Options{Folder: openFolder(b, folder.Options{Dir: dir, StateDir: sd}), StateDir: sd, Model: "m", LLM: m})
			for b.Loop() {
				pass++
				res, err := c.Compact(b.Context())
				if err != nil || res.Rewrote != 1 {
					b.Fatalf("pass %d: %v", pass, err)
				}
			}
			m.report(b, pass, size)
		})
	}
}
