package install

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tailscale/hujson"

	"github.com/memoryd/memoryd/internal/atomicfile"
)

// Claude Code has a memory of its own (auto-memory: it tells the model to
// write facts into ~/.claude/projects/…/memory/). Beside memoryd that is
// two memories, and facts split between them. Install turns it off with
// the user setting autoMemoryEnabled: false (unless --keep-claude-memory)
// and records the value it replaced, so that uninstall puts that value
// back — or removes the key when there was none.

// ClaudeAutoMemoryKey is Claude Code's setting for its auto-memory.
const ClaudeAutoMemoryKey = "autoMemoryEnabled"

// claudeMemoryRecord is the state file that remembers what install
// replaced, in $XDG_STATE_HOME/memoryd.
const claudeMemoryRecord = "claude-auto-memory.json"

// claudeMemoryState is the record: the settings file and the JSON text of
// the value install replaced ("" when the key was absent).
type claudeMemoryState struct {
	Settings string `json:"settings"`
	Previous string `json:"previous"`
}

func (o *Options) claudeMemoryRecordPath() string {
	state := o.StateHome
	if !filepath.IsAbs(state) {
		state = filepath.Join(o.Home, ".local", "state")
	}
	return filepath.Join(state, "memoryd", claudeMemoryRecord)
}

// ClaudeAutoMemory reports whether settings.json's data leaves Claude
// Code's auto-memory on (its default).
func ClaudeAutoMemory(data []byte) bool {
	root, err := parseObject("claude settings", data)
	if err != nil {
		return true
	}
	v := root.Find("/" + ClaudeAutoMemoryKey)
	return v == nil || v.Value.Kind() != 'f'
}

// disableClaudeMemory sets autoMemoryEnabled to false in root, recording
// the value it replaces unless a record of an earlier install is there.
func (o *Options) disableClaudeMemory(root *hujson.Value, settings, unit string) error {
	obj := root.Value.(*hujson.Object)
	prev := ""
	if m := member(obj, ClaudeAutoMemoryKey); m != nil {
		if m.Value.Value.Kind() == 'f' {
			return nil // off already: nothing to give back
		}
		c := m.Value.Clone()
		c.BeforeExtra, c.AfterExtra = nil, nil
		prev = string(c.Pack())
	}
	path := o.claudeMemoryRecordPath()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		data, _ := json.Marshal(claudeMemoryState{Settings: settings, Previous: prev})
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if _, err := atomicfile.Write(filepath.Dir(path), filepath.Base(path), data, 0o600); err != nil {
			return err
		}
	}
	setMember(obj, ClaudeAutoMemoryKey, false, unit)
	return nil
}

// restoreClaudeMemory gives autoMemoryEnabled back the value install
// replaced, when install turned it off and it is still off, and forgets
// the record.
func (o *Options) restoreClaudeMemory(root *hujson.Value, settings string) (bool, error) {
	path := o.claudeMemoryRecordPath()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	var rec claudeMemoryState
	if err != nil || json.Unmarshal(data, &rec) != nil || rec.Settings != settings {
		return false, err
	}
	obj := root.Value.(*hujson.Object)
	m := member(obj, ClaudeAutoMemoryKey)
	changed := false
	if m != nil && m.Value.Value.Kind() == 'f' {
		if rec.Previous == "" {
			removeMember(obj, ClaudeAutoMemoryKey)
		} else if v, err := hujson.Parse([]byte(rec.Previous)); err == nil {
			m.Value.Value = v.Value
		}
		changed = true
	}
	return changed, os.Remove(path)
}
