package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkToolHook measures the tool-call hook (`memoryd recall-tool`)
// at 10,000 facts with the daemon up, each case against `memoryd version`
// in the same run, a new session each run: Claude Code's PreToolUse on a
// file no fact is about and on a cited one (toolHookMetrics), Codex's
// PreToolUse on a shell command naming no cited file, and a failed
// command (Claude Code's PostToolUseFailure) that no fact mentions and
// one that a fact mentions, and Codex's PostToolUse after a command a fact
// mentions, which succeeded and which failed (its exit status read from a
// rollout). The bounds: ≤ version + 5 ms with
// nothing to add, ≤ + 15 ms with a hit.
//
//	go test -run '^$' -bench ToolHook -benchtime 1x ./cmd/memoryd/
func BenchmarkToolHook(b *testing.B) {
	const runs = 40
	for b.Loop() {
		w := newWorld(b)
		writeFacts(w, 10000)
		w.write("project-migrations.md", "---\nname: migrations\ndescription: How migrations run\nmetadata:\n  type: project\n---\nNever run migration 0042 twice; see src/db/migrate.go.\n")
		w.write("project-migrate-twice.md", "---\nname: migrate twice\ndescription: Migration 0042 is not idempotent\nmetadata:\n  type: project\n---\nNever run `make migrate` twice after a failure: restore the dump first.\n")
		if out, code := w.runCmd(nil, "rebuild"); code != 0 {
			b.Fatalf("rebuild: %s", out)
		}
		w.git(w.notes, "add", "-A")
		w.git(w.notes, "commit", "-q", "-m", "facts")
		p := w.startDaemon()
		waitFor(b, "the warm socket", func() bool { return warmAnswers(w) })
		waitFor(b, "the daemon's map of cited files", func() bool {
			data, _ := os.ReadFile(filepath.Join(w.stateDir(), "cited.json"))
			return strings.Contains(string(data), "src/db/migrate.go")
		})
		toolHookMetrics(b, w, runs)
		failedHookMetrics(b, w, runs)
		p.stop(b)
	}
}

// failedHookMetrics reports recall-tool over version for Codex's
// PreToolUse on a shell command, and for failed commands with and
// without a fact that mentions them.
func failedHookMetrics(b *testing.B, w *world, runs int) {
	repo := filepath.Join(w.home, "app")
	payload := func(label string, fields map[string]any) func(int) string {
		return func(i int) string {
			fields["session_id"], fields["cwd"] = fmt.Sprintf("%s-%d", label, i), repo
			data, _ := json.Marshal(fields)
			return string(data)
		}
	}
	failed := func(command string) map[string]any {
		return map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
			"tool_input": map[string]any{"command": command}, "error": "Exit code 2"}
	}
	empty := func(what string) func(string) {
		return func(out string) {
			if out != "" {
				b.Fatalf("recall-tool on %s: %s", what, out)
			}
		}
	}
	version := medianRun(b, w, runs, func(int) []string { return []string{"version"} })
	shell := medianStdin(b, w, runs, []string{"recall-tool"}, payload("shell", map[string]any{"hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./internal/... && cat README.md"}}), empty("a shell command"))
	miss := medianStdin(b, w, runs, []string{"recall-tool"}, payload("fail-miss", failed("cargo build --release")), empty("a failed command no fact mentions"))
	hit := medianStdin(b, w, runs, []string{"recall-tool"}, payload("fail-hit", failed("make migrate")), func(out string) {
		if !strings.Contains(out, "restore the dump") {
			b.Fatalf("recall-tool after make migrate failed: %q", out)
		}
	})
	rollout := filepath.Join(b.TempDir(), "rollout.jsonl")
	ended := func(turn string, code int) string {
		return fmt.Sprintf(`{"type":"event_msg","payload":{"type":"item_completed","turn_id":%q,"item":{"type":"CommandExecution","id":"call_1","aggregated_output":%q,"exit_code":%d}}}`,
			turn, strings.Repeat("output line\n", 200), code)
	}
	if err := os.WriteFile(rollout, []byte(strings.Repeat(`{"type":"response_item","payload":{"type":"message"}}`+"\n", 500)+ended("ok", 0)+"\n"+ended("fail", 2)+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	after := func(turn string) map[string]any {
		return map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "make migrate"},
			"tool_response": "migrated\n", "transcript_path": rollout, "turn_id": turn, "tool_use_id": "call_1"}
	}
	codexOK := medianStdin(b, w, runs, []string{"recall-tool"}, payload("codex-ok", after("ok")), empty("a Codex command that succeeded"))
	codexFailed := medianStdin(b, w, runs, []string{"recall-tool"}, payload("codex-fail", after("fail")), func(out string) {
		if !strings.Contains(out, "restore the dump") {
			b.Fatalf("recall-tool after Codex's make migrate failed: %q", out)
		}
	})
	b.ReportMetric(version, "version-ms")
	b.ReportMetric(shell-version, "codex-shell-nothing-over-version-ms")
	b.ReportMetric(codexOK-version, "codex-after-ok-over-version-ms")
	b.ReportMetric(codexFailed-version, "codex-after-failed-over-version-ms")
	b.ReportMetric(miss-version, "failed-nothing-over-version-ms")
	b.ReportMetric(hit-version, "failed-hit-over-version-ms")
}
