package install

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/memoryd/memoryd/internal/shell"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Agent wiring: each agent's file (opencode.go, claude.go, codex.go) has
// pure functions that render memoryd's part into a user's file and remove
// it again; editFile is the one step that applies them. Install adds, for
// the agents asked for, the MCP server (`memoryd mcp`) and a way to load
// the memory at session start; Uninstall removes memoryd's part from every
// agent's files, whichever were wired, and leaves the rest byte for byte.

// MCPServerName is the name of memoryd's MCP server in every agent's
// configuration; agents offer its tools as mcp__memoryd__<tool>.
const MCPServerName = "memoryd"

// ReadOnlyTools are the MCP tools that only read the memory: agents may run
// them without asking (Claude Code's permissions.allow; Codex honours the
// tools' readOnlyHint). memory_save and memory_forget keep asking.
var ReadOnlyTools = []string{"memory_search", "memory_read"}

// MCPCommand is the command line an agent starts the MCP server with.
func (o *Options) MCPCommand() []string {
	return []string{o.Binary, "mcp", "--config", o.ConfigPath}
}

// contextCommand is the shell command a session-start hook runs.
func (o *Options) contextCommand(args ...string) string {
	return o.hookCommand("context", args...)
}

// recallCommand is the shell command a prompt hook runs.
func (o *Options) recallCommand(args ...string) string {
	return o.hookCommand("recall", args...)
}

// hookCommand is the shell command line of `memoryd SUB ARGS --config
// FILE`, each word quoted once, here (shellWords reads it back).
func (o *Options) hookCommand(sub string, args ...string) string {
	words := append([]string{o.Binary, sub}, args...)
	words = append(words, "--config", o.ConfigPath)
	for i, w := range words {
		words[i] = shell.Quote(w)
	}
	return strings.Join(words, " ")
}

// isMemorydCommand reports whether command runs `memoryd SUB …` (any
// memoryd binary: one that moved is still memoryd's to replace or remove).
func isMemorydCommand(command, sub string) bool {
	w, ok := shell.Words(command)
	return ok && len(w) >= 2 && filepath.Base(w[0]) == "memoryd" && w[1] == sub
}

// editFile applies edit to the file at path (data nil when it does not
// exist) and writes the result when it differs, creating the folder. A
// result for which empty reports true is what is left of a file install
// created once memoryd's part is removed: the file is deleted. A symlinked
// file is edited where it points.
func editFile(path string, perm fs.FileMode, edit func([]byte) ([]byte, error), empty func([]byte) bool) (Outcome, error) {
	data, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	out, err := edit(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case existed && bytes.Equal(out, data), !existed && out == nil:
		return Unchanged, nil
	case existed && empty != nil && empty(out):
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		if err := os.Remove(path); err != nil {
			return "", err
		}
		return Removed, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if _, err := writeFollowing(path, out, perm); err != nil {
		return "", err
	}
	if !existed {
		return Created, nil
	}
	return Updated, nil
}

// keepPerm is the mode a file is rewritten with: its own, else def.
func keepPerm(path string, def fs.FileMode) fs.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return def
}

// agentStep is one file of an agent's wiring.
type agentStep struct {
	what, path string
	perm       fs.FileMode
	add        func([]byte) ([]byte, error)
	remove     func([]byte) ([]byte, error)
	empty      func([]byte) bool
	note       string
}

// wireAgents adds memoryd to the agents o asks for.
func wireAgents(o *Options, r *Report) error {
	var steps []agentStep
	if o.OpenCode {
		steps = append(steps, openCodeSteps(o, true)...)
	}
	if o.Claude {
		steps = append(steps, claudeSteps(o)...)
	}
	if o.Codex {
		steps = append(steps, codexSteps(o)...)
	}
	for _, s := range steps {
		res, err := editFile(s.path, keepPerm(s.path, s.perm), s.add, nil)
		if err != nil {
			return fmt.Errorf("install: %s: %w", s.what, err)
		}
		r.step(o, Step{What: s.what, Path: s.path, Outcome: res, Note: s.note})
	}
	return nil
}

// unwireAgents removes memoryd from every agent's files. It goes on past
// errors and returns them joined.
func unwireAgents(o *Options, r *Report) error {
	steps := append(append(openCodeSteps(o, false), claudeSteps(o)...), codexSteps(o)...)
	var errs []error
	for _, s := range steps {
		if _, err := os.Lstat(s.path); err != nil {
			continue
		}
		res, err := editFile(s.path, keepPerm(s.path, s.perm), s.remove, s.empty)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.what, err))
			continue
		}
		if res != Unchanged {
			r.step(o, Step{What: s.what, Path: s.path, Outcome: res, Note: "memoryd's part removed"})
		}
	}
	return errors.Join(errs...)
}
