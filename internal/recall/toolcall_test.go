package recall

import (
	"slices"
	"testing"
)

// TestParseToolCall: each agent's payload, as the real agents send it.
func TestParseToolCall(t *testing.T) {
	for _, c := range []struct {
		name, payload  string
		files          []string
		failed, errMsg string
	}{
		{"claude read", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/r/src/a.go"}}`, []string{"/r/src/a.go"}, "", ""},
		{"claude notebook", `{"hook_event_name":"PreToolUse","tool_input":{"notebook_path":"nb.ipynb"}}`, []string{"nb.ipynb"}, "", ""},
		{"opencode read", `{"session_id":"s","tool_input":{"filePath":"/r/x.go"}}`, []string{"/r/x.go"}, "", ""},
		{"codex cat", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sed -n 1,40p src/db/migrate.go && cat ./README.md"}}`,
			[]string{"src/db/migrate.go", "./README.md"}, "", ""},
		{"codex flags and assignments", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"GOFLAGS=-x go test -run=X ./..."}}`,
			[]string{"./..."}, "", ""},
		{"codex apply_patch", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: src/db/migrate.go\n@@\n-a\n+b\n*** Add File: src/new.go\n+x\n*** End Patch\n"}}`,
			[]string{"src/db/migrate.go", "src/new.go"}, "", ""},
		{"codex heredoc patch", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a/b.go\n*** End Patch\nEOF\n"}}`,
			[]string{"a/b.go"}, "", ""},
		{"codex argv", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["cat","src/x.go"]}}`, []string{"src/x.go"}, "", ""},
		{"claude failure", `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make migrate"},"error":"Exit code 2"}`, nil, "make migrate", "Exit code 2"},
		{"claude interrupt", `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make migrate"},"error":"Interrupted","is_interrupt":true}`, nil, "", ""},
		{"opencode failure", `{"tool_input":{"command":"make migrate"},"exit_code":2}`, nil, "make migrate", ""},
		{"opencode success", `{"tool_input":{"command":"make migrate"},"exit_code":0}`, nil, "", ""},
		{"codex after", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make migrate"},"tool_response":"Error 2\n","transcript_path":"/r.jsonl","turn_id":"t","tool_use_id":"call_1"}`, nil, "make migrate", ""},
	} {
		got, err := ParseToolCall([]byte(c.payload))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(got.Files, c.files) || got.Failed != c.failed || got.Error != c.errMsg {
			t.Errorf("%s: files %q failed %q error %q, want %q %q %q", c.name, got.Files, got.Failed, got.Error, c.files, c.failed, c.errMsg)
		}
	}
	after, _ := ParseToolCall([]byte(`{"hook_event_name":"PostToolUse","tool_input":{"command":"make"},"transcript_path":"/r.jsonl","turn_id":"t","tool_use_id":"c"}`))
	if after.Ran == nil || *after.Ran != (RolloutCall{Path: "/r.jsonl", TurnID: "t", CallID: "c"}) {
		t.Errorf("Codex PostToolUse: Ran %+v, want the rollout, turn and call", after.Ran)
	}
	if _, err := ParseToolCall([]byte("{")); err == nil {
		t.Error("bad JSON parsed")
	}
}

// TestCommandPhrases: what facts call a failed command.
func TestCommandPhrases(t *testing.T) {
	for cmd, want := range map[string][]string{
		"make migrate":                      {"make migrate"},
		"cd app && make migrate 2>&1 | tee": {"make migrate", "tee"},
		"sudo FOO=1 /usr/bin/make -j4":      {"make"},
		"go test ./internal/...":            {"go test"},
		"npm run build -- --prod":           {"npm run"},
		"echo hi; ls -la; cd /tmp":          nil,
		"pytest -x tests/":                  {"pytest"},
		"":                                  nil,
	} {
		if got := CommandPhrases(cmd); !slices.Equal(got, want) {
			t.Errorf("CommandPhrases(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestMentions: a fact mentions a command as whole words only.
func TestMentions(t *testing.T) {
	phrases := []string{"make migrate"}
	for body, want := range map[string]string{
		"Never run `make migrate` twice: migration 0042 is not idempotent.": "make migrate",
		"Never run Make  Migrate\ntwice.":                                   "make migrate",
		"make migrates the schema":                                          "",
		"remake migrate":                                                    "",
		"run make then migrate":                                             "",
	} {
		if got := Mentions(Fact{Body: body}, phrases); got != want {
			t.Errorf("Mentions(%q) = %q, want %q", body, got, want)
		}
	}
}
