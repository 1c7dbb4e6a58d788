package recall

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/plain"
)

// InputMax bounds what a hook reads of its input.
const InputMax = 1 << 20

// ReadInput reads and parses the prompt hook's input from r.
func ReadInput(r io.Reader) (Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, InputMax))
	if err != nil {
		return Input{}, fmt.Errorf("read the hook's input: %w", err)
	}
	return ParseInput(data)
}

// Output is text in the format the caller reads: Claude Code and Codex
// take hookSpecificOutput.additionalContext (plain text works too, but
// JSON is unambiguous); the OpenCode plugin takes text. format is auto,
// json or text; auto is json when the input named a hook event.
func Output(format, event, text string) (string, error) {
	// The OpenCode plugin reads the text, a person may run recall in a
	// terminal, and a model reads both forms: no control byte of a fact's
	// text reaches any of them.
	text = plain.Text(text)
	if format == "auto" {
		format = "text"
		if event != "" {
			format = "json"
		}
	}
	switch format {
	case "text":
		return text, nil
	case "json":
		if event == "" {
			event = "UserPromptSubmit"
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		err := enc.Encode(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": text}})
		return b.String(), err
	}
	return "", fmt.Errorf("--format %q: want auto, json or text", format)
}

// IndexLink matches an index line's link to a fact file.
var IndexLink = regexp.MustCompile(`\]\(([^()\s]+\.md)\)`)

// Loaded returns the facts a session in project slug loaded at its start
// from the memory folder dir: those listed in what `memoryd context`
// shows there, or with projectOnly in MEMORY.md and what `memoryd context
// --project-only` shows; b and hold are the index's budget and gate.
func Loaded(dir, slug string, b index.Budget, projectOnly bool, hold func(*index.Memory) bool) (map[string]bool, error) {
	text, err := index.ReadContext(dir, slug, b, projectOnly, hold)
	if err != nil {
		return nil, err
	}
	if projectOnly {
		global, err := index.ReadPlain(dir, index.IndexFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		text = append(append(global, '\n'), text...)
	}
	loaded := map[string]bool{}
	for _, m := range IndexLink.FindAllSubmatch(text, -1) {
		loaded[string(m[1])] = true
	}
	return loaded, nil
}
