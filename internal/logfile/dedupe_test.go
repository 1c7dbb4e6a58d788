package logfile

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestLogRepeatsOnce: a line logged 150 times in a row is written once,
// then one line with the count before the next different line; lines that
// differ in an attribute, or come from components with other attributes,
// are all written.
func TestLogRepeatsOnce(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Dedupe(slog.NewTextHandler(&buf, nil)))
	c := log.With("component", "daemon")
	for range 150 {
		c.Info("compaction started", "churn", 9)
	}
	c.Info("compaction started", "churn", 10)
	log.With("component", "other").Info("compaction started", "churn", 10)
	log.Debug("not enabled")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), buf.String())
	}
	if !strings.Contains(lines[0], "churn=9") || !strings.Contains(lines[1], "the previous line repeated 149 more time(s)") ||
		!strings.Contains(lines[2], "churn=10") || !strings.Contains(lines[3], "component=other") {
		t.Errorf("lines:\n%s", buf.String())
	}
}
