package recall

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rolloutEnd is the record Codex 0.169 writes when a command ends (cut to
// the fields read, plus a long output).
func rolloutEnd(turn, call string, code int, output string) string {
	return `{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","thread_id":"x","turn_id":"` + turn +
		`","item":{"type":"CommandExecution","id":"` + call + `","command":["/bin/bash","-lc","make migrate"],"status":"failed","aggregated_output":"` +
		output + `","exit_code":` + strconv.Itoa(code) + `}}}`
}

// TestRolloutFailed: the exit status of the call with the hook's turn and
// id, from the rollout's last records; an earlier turn's call of the same
// id is not it; a record written while the hook waits is found; none at
// all is ErrExitUnknown.
func TestRolloutFailed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout.jsonl")
	long := strings.Repeat("x", 300<<10) // past the first window read
	lines := []string{
		`{"type":"session_meta","payload":{"id":"s"}}`,
		rolloutEnd("t1", "call_1", 0, "ok"),
		rolloutEnd("t2", "call_1", 2, long),
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"make: *** Error 2"}}`,
		rolloutEnd("t3", "call_9", 0, "fine"),
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		call   RolloutCall
		failed bool
		err    error
	}{
		{RolloutCall{path, "t2", "call_1"}, true, nil},
		{RolloutCall{path, "t1", "call_1"}, false, nil},
		{RolloutCall{path, "t3", "call_9"}, false, nil},
		{RolloutCall{path, "t4", "call_1"}, false, ErrExitUnknown},
		{RolloutCall{filepath.Join(dir, "none.jsonl"), "t1", "call_1"}, false, ErrExitUnknown},
		{RolloutCall{"", "t1", "call_1"}, false, ErrExitUnknown},
	} {
		failed, err := c.call.Failed(ctx)
		if failed != c.failed || !errors.Is(err, c.err) {
			t.Errorf("%+v: failed %v, %v; want %v, %v", c.call.TurnID+"/"+c.call.CallID, failed, err, c.failed, c.err)
		}
	}
	// Codex writes the record beside the hook: a late one is waited for.
	go func() {
		time.Sleep(50 * time.Millisecond)
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(rolloutEnd("t5", "call_2", 1, "late") + "\n")
		f.Close()
	}()
	if failed, err := (RolloutCall{path, "t5", "call_2"}).Failed(ctx); !failed || err != nil {
		t.Errorf("a record written while waiting: failed %v, %v; want true", failed, err)
	}
}
