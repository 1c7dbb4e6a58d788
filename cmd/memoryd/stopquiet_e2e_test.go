package main

import (
	"strings"
	"testing"
)

// TestStopDuringAModelCallIsNoWarning: a daemon stopped (SIGTERM) while an
// extraction waits for the model logs no warning or error about the call
// it cancelled: a cancelled context at shutdown is how work stops.
func TestStopDuringAModelCallIsNoWarning(t *testing.T) {
	release := make(chan struct{})
	w, srv := llmWorld(t, func(string) string {
		<-release // the model thinks until the test ends
		return `{"memories": []}`
	})
	t.Cleanup(func() { close(release) }) // before the server's own cleanup
	claudeSessions(t, w, 1)
	p := w.startDaemon("MEMORY_EXTRACT_DEBOUNCE_MS=100")
	srv.WaitPrompts(t, 1, patience)
	p.stop(t)
	out := p.output()
	for _, line := range strings.Split(out, "\n") {
		if (strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR")) && strings.Contains(line, "context canceled") {
			t.Errorf("a call cancelled at shutdown is logged as a problem:\n%s", line)
		}
	}
	if !strings.Contains(out, "llm call stopped") {
		t.Errorf("the cancelled call is not in the log at all:\n%s", out)
	}
}
