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
// it again; wireAgents and unwireAgents apply them. Install adds, for
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
	// empty reports whether what remove left of a file install created
	// is nothing: uninstall then deletes the file.
	empty func([]byte) bool
	note  string
	// json marks a JSON or JSONC file: lines install adds to a CRLF file
	// end in CRLF, and uninstall compares it with its bytes before
	// install as JSON (see agentfiles.go).
	json bool
	// report, when set, adds to the note what install left alone in the
	// file it wrote.
	report func([]byte) string
}

// readOnly reports whether the file at path (where a link points) exists
// and is not writable by its owner: memoryd reports such a file instead of
// replacing it (a rename would, whatever its mode) or changing its mode.
func readOnly(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Perm()&0o200 == 0
}

// errReadOnly is the report for a read-only file memoryd would change.
func errReadOnly(path, verb string) error {
	return fmt.Errorf("%s is read-only, so memoryd leaves it as it is (no chmod, no replace): make it writable (chmod u+w %s), then %s again",
		path, shell.Quote(path), verb)
}

// edit is one planned change of an agent's file.
type edit struct {
	s       agentStep
	data    []byte // the file's bytes (nil when it does not exist)
	existed bool
	out     []byte
}

// planAgents computes install's change to each file of the agents o asks
// for, writing nothing: any file that cannot be changed (not parsable, not
// memoryd's to replace, read-only, a result that would not parse) is an
// error, so that install writes nothing at all to the agents' files.
func planAgents(o *Options) ([]edit, error) {
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
	var plan []edit
	for _, s := range steps {
		data, err := os.ReadFile(s.path)
		existed := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("install: %s: %w", s.what, err)
		}
		out, err := s.add(data)
		if err != nil {
			return nil, fmt.Errorf("install: %s: %s: %w", s.what, s.path, err)
		}
		if s.json && isCRLF(data) {
			out = toCRLF(out)
		}
		if existed && !bytes.Equal(out, data) && readOnly(s.path) {
			return nil, fmt.Errorf("install: %s: %w", s.what, errReadOnly(s.path, "install"))
		}
		plan = append(plan, edit{s, data, existed, out})
	}
	return plan, nil
}

// wireAgents adds memoryd to the agents o asks for: every change is
// planned first, then the files are written, the ones install creates or
// changes recorded for uninstall first.
func wireAgents(o *Options, r *Report) error {
	plan, err := planAgents(o)
	if err != nil {
		return err
	}
	recs := o.loadFileRecords()
	recorded := false
	for _, e := range plan {
		if e.changes() {
			recorded = recs.note(e.s.path, e.existed, e.data) || recorded
		}
	}
	if recorded {
		if err := o.saveFileRecords(recs); err != nil {
			return fmt.Errorf("install: %w", err)
		}
	}
	for _, e := range plan {
		res := Unchanged
		if e.changes() {
			if err := os.MkdirAll(filepath.Dir(e.s.path), 0o755); err != nil {
				return fmt.Errorf("install: %s: %w", e.s.what, err)
			}
			if _, err := writeFollowing(e.s.path, e.out, keepPerm(e.s.path, e.s.perm)); err != nil {
				return fmt.Errorf("install: %s: %w", e.s.what, err)
			}
			res = Updated
			if !e.existed {
				res = Created
			}
		}
		note := e.s.note
		if e.s.report != nil {
			if more := e.s.report(e.out); more != "" {
				note += "; " + more
			}
		}
		r.step(o, Step{What: e.s.what, Path: e.s.path, Outcome: res, Note: note})
	}
	return nil
}

// changes reports whether the edit writes the file.
func (e edit) changes() bool {
	if !e.existed {
		return e.out != nil
	}
	return !bytes.Equal(e.out, e.data)
}

// unwireAgents removes memoryd from every agent's files. It goes on past
// errors and returns them joined. A file gets back its bytes from before
// install when what is left means the same (see agentfiles.go); a file
// install created is deleted once nothing is left of it; a link stays a
// link; a read-only file is reported, not changed.
func unwireAgents(o *Options, r *Report) error {
	steps := append(append(openCodeSteps(o, false), claudeSteps(o)...), codexSteps(o)...)
	recs := o.loadFileRecords()
	forgot := false
	var errs []error
	for _, s := range steps {
		lfi, err := os.Lstat(s.path)
		if err != nil {
			continue
		}
		data, err := os.ReadFile(s.path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.what, err))
			continue
		}
		out, err := s.remove(data)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", s.what, s.path, err))
			continue
		}
		if s.json && isCRLF(data) {
			out = toCRLF(out)
		}
		rec, has := recs[s.path]
		if has && rec.Before != nil && !bytes.Equal(out, data) && s.sameAs(out, rec.Before) {
			out = rec.Before
		}
		if bytes.Equal(out, data) {
			forgot = recs.forget(s.path) || forgot
			continue
		}
		if readOnly(s.path) {
			errs = append(errs, fmt.Errorf("%s: %w", s.what, errReadOnly(s.path, "uninstall")))
			continue
		}
		created := !has || rec.Created // without a record: what install of old left
		if created && s.empty != nil && s.empty(out) && lfi.Mode()&fs.ModeSymlink == 0 {
			if err := os.Remove(s.path); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s.what, err))
				continue
			}
			r.step(o, Step{What: s.what, Path: s.path, Outcome: Removed, Note: "memoryd's part removed"})
		} else {
			if _, err := writeFollowing(s.path, out, keepPerm(s.path, s.perm)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s.what, err))
				continue
			}
			r.step(o, Step{What: s.what, Path: s.path, Outcome: Updated, Note: "memoryd's part removed"})
		}
		forgot = recs.forget(s.path) || forgot
	}
	if forgot {
		if err := o.saveFileRecords(recs); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
