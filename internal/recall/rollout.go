package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// RolloutCall is a Codex tool call as its session's rollout (the JSONL
// file Codex names transcript_path) records it.
type RolloutCall struct {
	Path, TurnID, CallID string
}

// ErrExitUnknown is a command whose exit status the rollout does not
// hold (an --ephemeral session has none, or Codex has not written it yet).
var ErrExitUnknown = errors.New("the command's exit status is not in the session's rollout")

// rolloutWait bounds how long Failed waits for Codex to write the call's
// end: its rollout writer runs beside the hook.
const rolloutWait = 300 * time.Millisecond

// rolloutTailMax bounds how much of the rollout's end is read: the call's
// record holds its output, which may be long.
const rolloutTailMax = 8 << 20

// Failed reports whether the call ended with an exit status other than 0,
// from the record Codex 0.169 writes when a command ends (an event_msg
// item_completed whose item is the CommandExecution with the call's id
// and turn; exec_command_end in older rollouts). The record is looked
// for at the file's end, for up to rolloutWait.
func (c RolloutCall) Failed(ctx context.Context) (bool, error) {
	if c.Path == "" || c.CallID == "" {
		return false, ErrExitUnknown
	}
	deadline := time.Now().Add(rolloutWait)
	for {
		code, err := c.exitCode()
		if !errors.Is(err, ErrExitUnknown) {
			return err == nil && code != 0, err
		}
		if time.Now().After(deadline) {
			return false, err
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// rolloutRecord is the part of a rollout line that carries a command's end.
type rolloutRecord struct {
	Type    string `json:"type"`
	Payload struct {
		Type     string `json:"type"`
		TurnID   string `json:"turn_id"`
		CallID   string `json:"call_id"`
		ExitCode *int   `json:"exit_code"`
		Item     struct {
			Type     string `json:"type"`
			ID       string `json:"id"`
			ExitCode *int   `json:"exit_code"`
		} `json:"item"`
	} `json:"payload"`
}

// exitCode reads the call's exit status from the rollout's last lines.
func (c RolloutCall) exitCode() (int, error) {
	f, err := os.Open(c.Path)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrExitUnknown, err)
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	needle := []byte(`"` + c.CallID + `"`)
	for window := int64(64 << 10); ; window *= 4 {
		start := max(size-window, 0)
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return 0, err
		}
		lines := bytes.Split(buf, []byte("\n"))
		if start > 0 {
			lines = lines[1:] // the first may be cut
		}
		for i := len(lines) - 1; i >= 0; i-- {
			if code, ok := c.ended(lines[i], needle); ok {
				return code, nil
			}
		}
		if start == 0 || window >= rolloutTailMax {
			return 0, ErrExitUnknown
		}
	}
}

// ended is the exit status line records, when it is the call's end.
func (c RolloutCall) ended(line, needle []byte) (int, bool) {
	if !bytes.Contains(line, needle) {
		return 0, false
	}
	var r rolloutRecord
	if json.Unmarshal(line, &r) != nil || r.Type != "event_msg" {
		return 0, false
	}
	p := r.Payload
	if c.TurnID != "" && p.TurnID != "" && p.TurnID != c.TurnID {
		return 0, false
	}
	switch {
	case p.Type == "item_completed" && p.Item.Type == "CommandExecution" && p.Item.ID == c.CallID && p.Item.ExitCode != nil:
		return *p.Item.ExitCode, true
	case p.Type == "exec_command_end" && p.CallID == c.CallID && p.ExitCode != nil:
		return *p.ExitCode, true
	}
	return 0, false
}
