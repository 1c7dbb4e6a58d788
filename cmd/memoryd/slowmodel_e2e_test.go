package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// TestWritesDuringASlowCompaction (issue finding #7): while `memoryd
// compact` waits 30 s for a slow model, 20 `memoryd add` run at once and 5
// agents save through `memoryd mcp`; every write succeeds and is committed
// before the model answers. Then the pass applies its plan and commits.
func TestWritesDuringASlowCompaction(t *testing.T) {
	const thinking = 30 * time.Second
	var answered atomic.Bool
	w, srv, env := compactWorld(t, func(llmtest.Recorded) llmtest.Reply {
		time.Sleep(thinking)
		answered.Store(true)
		return jsonPlan(goodPlan()[:2]...) // the merge of the tabs files and the delete
	})
	env = append(env, "MEMORY_LLM_TIMEOUT_MS=120000")
	compact := w.start(env, "compact")
	srv.WaitPrompts(t, 1, patience)

	// The agents connect while the model thinks.
	sessions := make([]*mcp.ClientSession, 5)
	for i := range sessions {
		sessions[i], _ = w.mcpSession(w.home, fmt.Sprintf("agent-%d", i))
	}
	start := time.Now()
	var wg sync.WaitGroup
	failures := make(chan string, 25)
	for i := range 20 {
		wg.Go(func() {
			cmd := exec.Command(binPath, "add", "--type", "user", "--name", fmt.Sprintf("desk-%02d", i),
				"--description", fmt.Sprintf("Desk %d preference", i),
				fmt.Sprintf("Ana keeps item %s on desk number %d.", words[i], i))
			cmd.Env = w.env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				failures <- fmt.Sprintf("memoryd add desk-%02d: %v\n%s", i, err, out.String())
			}
		})
	}
	for i, cs := range sessions {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), thinking)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_save", Arguments: map[string]any{
				"type": "feedback", "name": fmt.Sprintf("agent-rule-%d", i), "description": fmt.Sprintf("Agent rule %d", i),
				"body": fmt.Sprintf("Always %s before opening pull request %d.", words[20+i], i)}})
			switch {
			case err != nil:
				failures <- fmt.Sprintf("memory_save by agent-%d: %v", i, err)
			case res.IsError:
				var text strings.Builder
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						text.WriteString(tc.Text)
					}
				}
				failures <- fmt.Sprintf("memory_save by agent-%d: %s", i, text.String())
			}
		})
	}
	written := make(chan struct{})
	go func() { wg.Wait(); close(written) }()
	select {
	case <-written:
	case <-time.After(thinking):
		t.Fatal("the writes were not done when the model answered")
	}
	t.Logf("25 writes done in %s while the model thinks", time.Since(start).Round(time.Millisecond))
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	if t.Failed() {
		t.FailNow()
	}

	// Every write is committed, and the model is still thinking.
	subjects := w.git(w.notes, "log", "--format=%s")
	for i := range 20 {
		if want := fmt.Sprintf("memory: add user-desk-%02d.md (cli)", i); !strings.Contains(subjects, want) {
			t.Errorf("no commit %q in:\n%s", want, subjects)
		}
	}
	for i := range 5 {
		if want := fmt.Sprintf("memory: add feedback-agent-rule-%d.md (mcp", i); !strings.Contains(subjects, want) {
			t.Errorf("no commit %q in:\n%s", want, subjects)
		}
	}
	if answered.Load() {
		t.Error("the model answered before the writes were checked; they may have waited for it")
	}
	select {
	case <-compact.done:
		t.Fatalf("memoryd compact ended while its model was thinking: %v\n%s", compact.err, compact.output())
	default:
	}

	// The pass then applies its plan around the new facts and commits.
	select {
	case <-compact.done:
	case <-time.After(thinking + patience):
		t.Fatal("memoryd compact did not finish")
	}
	if compact.err != nil {
		t.Fatalf("memoryd compact: %v\n%s", compact.err, compact.output())
	}
	if got := w.subjects()[0]; got != "memory: compaction (merged 1, superseded 1, rewrote 0, flagged 0)" {
		t.Errorf("last commit %q\n%s", got, compact.output())
	}
	if got := w.git(w.notes, "log", "-1", "--format=%(trailers:key=Memoryd-Kind,valueonly)%(trailers:key=Memoryd-Writer,valueonly)"); got != "compaction\nmodel" {
		t.Errorf("compaction trailers %q", got)
	}
	if !w.superseded("project-old-deadline.md") || w.exists("feedback-tabs-always.md") || !w.exists("feedback-indent-with-tabs.md") {
		t.Errorf("the plan was not applied: %v", w.memFiles())
	}
	for i := range 20 {
		if name := fmt.Sprintf("memory/user-desk-%02d.md", i); !strings.Contains(w.show(name), words[i]) {
			t.Errorf("%s is not in HEAD", name)
		}
	}
	for i := range 5 {
		if name := fmt.Sprintf("memory/feedback-agent-rule-%d.md", i); !strings.Contains(w.show(name), words[20+i]) {
			t.Errorf("%s is not in HEAD", name)
		}
	}
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
	w.fsck()
}

// words makes each written fact's text its own, so no two are duplicates.
var words = []string{"stapler", "lamp", "cactus", "notebook", "mug", "headphones", "clock", "globe", "ruler", "tape",
	"scissors", "calendar", "fan", "speaker", "candle", "mirror", "coaster", "charger", "compass", "kettle",
	"rebase", "lint", "test", "format", "squash"}
