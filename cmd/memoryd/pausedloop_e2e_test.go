package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/state"
)

// TestPausedCompactionIsQuiet: once compaction pauses at the day's bound
// on removals, the churn that keeps coming (ten facts, each committed)
// does not start it again — the log says "compaction started" once and
// "compaction paused" once, and grows by a few lines a commit, not by a
// hot loop's hundreds a second (it did: ~150 starts a second).
func TestPausedCompactionIsQuiet(t *testing.T) {
	w := newWorld(t)
	for _, n := range []string{"a", "b", "c", "d"} {
		w.write("user-"+n+".md", memoryFile("user", n, "Fact "+n, "Body of fact "+n+"."))
	}
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "facts")
	sd, err := state.Dir(filepath.Join(w.home, ".local", "state"), w.mem)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(sd, 0o700)
	now := time.Now()
	// Churn over the trigger, and the day's removals spent (4 files allow 1).
	st := state.Compaction{Churn: 10, LastCompactedAt: now, LastAttemptedAt: now.Add(-time.Hour),
		Removed: []state.Removal{{At: now.Add(-time.Hour), N: 5}}}
	if err := state.WriteJSON(sd, state.CompactionFile, st); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: `{"ops": []}`} })
	p := w.startDaemon("MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL="+srv.OpenAIURL(),
		"MEMORY_EXTRACT_MODEL=openai/"+llmtest.ModelID, "MEMORY_COMPACT_CHURN=2", "MEMORY_EXTRACT_ENABLED=0")
	defer p.stop(t)
	waitFor(t, "compaction to pause at the day's bound", func() bool { return strings.Contains(p.output(), "compaction paused") })
	before := strings.Count(p.output(), "\n")
	for i := range 10 {
		name := fmt.Sprintf("user-new-%d.md", i)
		w.write(name, memoryFile("user", fmt.Sprintf("new-%d", i), "New fact", "New body."))
		waitFor(t, name+" committed", func() bool { return w.show("memory/"+name) != "" })
	}
	out := p.output()
	if n := strings.Count(out, "compaction started"); n != 1 {
		t.Errorf("compaction started %d times while paused, want 1", n)
	}
	if grown := strings.Count(out, "\n") - before; grown > 10*8 {
		t.Errorf("the log grew by %d lines over 10 commits while paused", grown)
	}
	if len(srv.Prompts()) != 0 {
		t.Errorf("%d requests to the model while paused", len(srv.Prompts()))
	}
}
