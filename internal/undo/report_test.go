package undo

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestHistoryMarksAndJSON(t *testing.T) {
	for _, c := range []struct {
		e    Entry
		want string
	}{
		{Entry{Undoable: true, Kind: KindCompaction}, "u*"},
		{Entry{UndoneBy: "abc", Kind: KindCheckpoint}, "-C"},
		{Entry{}, "  "},
	} {
		if got := c.e.Mark(); got != c.want {
			t.Errorf("%+v: mark %q, want %q", c.e, got, c.want)
		}
	}
	data, _ := json.Marshal(HistoryJSON([]Entry{{Kind: KindCompaction}}))
	if !strings.Contains(string(data), `"files":[]`) {
		t.Errorf("json %s: files must be [] when none", data)
	}
}

func TestResultPrint(t *testing.T) {
	var b bytes.Buffer
	Result{Restored: true, What: "the checkpoint", Commit: "0123456789abcdef", Later: 2}.Print(&b)
	if b.String() != "restored the memory folder to the checkpoint in commit 0123456789ab\n"+
		"note: 2 later commit(s) to the memory folder were undone too; they stay in history ('memoryd history')\n" {
		t.Errorf("printed:\n%s", b.String())
	}
}
