package compactor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/memoryd/memoryd/internal/index"
)

// Op kinds of a plan.
const (
	OpMerge     = "merge"
	OpDelete    = "delete" // never applied as a deletion: a supersession when it names its successor, else refused
	OpSupersede = "supersede"
	OpRewrite   = "rewrite"
	OpFlag      = "flag"
)

// Op is one operation of a compaction plan, as the model writes it:
//
//	{"op": "merge",   "files": [...], "into": {"type", "name", "description", "body"}, "reason": "…"}
//	{"op": "supersede", "file": "old.md", "by": "new.md", "reason": "…"}
//	{"op": "delete",  "file": "…", "reason": "…"} (applied as a supersession when it names its successor)
//	{"op": "rewrite", "file": "…", "description": "…", "body": "…", "reason": "…"}
//	{"op": "flag",    "files": [...], "note": "…"}
type Op struct {
	Op          string   `json:"op"`
	Files       []string `json:"files,omitempty"`
	File        string   `json:"file,omitempty"`
	By          string   `json:"by,omitempty"` // supersede: the current fact that replaces File
	Into        *Into    `json:"into,omitempty"`
	Description string   `json:"description,omitempty"`
	Body        string   `json:"body,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Note        string   `json:"note,omitempty"`
}

// maxLine bounds one line of model text: a description, a reason.
const maxLine = 2000

// Into is the memory a merge writes.
type Into struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Body        string `json:"body"`
}

// String describes op on one line, for logs and `memoryd compact` output.
func (op Op) String() string {
	var b strings.Builder
	b.WriteString(op.Op)
	switch op.Op {
	case OpMerge:
		b.WriteString(" " + strings.Join(displayNames(op.Files), " + "))
		if op.Into != nil {
			target := op.Into.Type + "-" + op.Into.Name + ".md"
			if op.Into.Type == "" {
				target = op.Into.Name + ".md"
			}
			b.WriteString(" -> " + target)
		}
	case OpFlag:
		b.WriteString(" " + strings.Join(displayNames(op.Files), ", "))
	case OpSupersede:
		b.WriteString(" " + displayName(op.File) + " by " + displayName(op.By))
	default:
		if op.File != "" {
			b.WriteString(" " + displayName(op.File))
		}
	}
	why := op.Reason
	if op.Op == OpFlag && op.Note != "" {
		why = op.Note
	}
	if why = strings.Join(strings.Fields(why), " "); why != "" {
		b.WriteString(" (" + clip(why, 160) + ")")
	}
	return b.String()
}

// displayName is a file name from the model as it may be shown: cleaned
// and clipped.
func displayName(name string) string { return clip(index.CleanText(name, false, maxLine), 120) }

func displayNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = displayName(n)
	}
	return out
}

// UnmarshalJSON accepts what models commonly write: "files" as a single
// string, "file" as a one-element list, and "op" in any case.
func (op *Op) UnmarshalJSON(data []byte) error {
	var raw struct {
		Op          string     `json:"op"`
		Files       stringList `json:"files"`
		File        stringList `json:"file"`
		By          string     `json:"by"`
		Into        *Into      `json:"into"`
		Description string     `json:"description"`
		Body        string     `json:"body"`
		Reason      string     `json:"reason"`
		Note        string     `json:"note"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	// Text from the model is cleaned of control and bidirectional
	// characters before it can reach a file, MEMORY.md, _CONFLICTS.md or a
	// commit message. File names stay as given: check refuses unsafe ones,
	// and String cleans them for display.
	line := func(s string) string { return index.CleanText(s, false, maxLine) }
	text := func(s string) string { return index.CleanText(s, true, index.MaxFileSize) }
	*op = Op{
		Op: strings.ToLower(strings.TrimSpace(line(raw.Op))), Files: raw.Files, Into: raw.Into, By: strings.TrimSpace(raw.By),
		Description: line(raw.Description), Body: text(raw.Body), Reason: line(raw.Reason), Note: text(raw.Note),
	}
	if in := op.Into; in != nil {
		in.Type, in.Name, in.Description, in.Body = line(in.Type), line(in.Name), line(in.Description), text(in.Body)
	}
	switch len(raw.File) {
	case 0:
	case 1:
		op.File = raw.File[0]
	default:
		op.Files = append(op.Files, raw.File...)
	}
	if op.File == "" && len(op.Files) == 1 && (op.Op == OpDelete || op.Op == OpRewrite || op.Op == OpSupersede) {
		op.File, op.Files = op.Files[0], nil
	}
	return nil
}

// stringList is a JSON list of strings that also accepts a single string.
type stringList []string

func (l *stringList) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*l = stringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return errors.New("want a file name or a list of file names")
	}
	*l = many
	return nil
}

// ErrBadPlan means the model's answer holds no usable plan.
var ErrBadPlan = errors.New("unusable plan")

// ParsePlan reads a model's answer: a JSON object {"ops": [...]} or a bare
// array of ops, possibly inside a markdown code fence or after a line of
// prose. An element that is not a valid op object is reported in bad (one
// reason each) and left out; it does not spoil the rest. The error wraps
// ErrBadPlan when no JSON plan can be found at all. An empty plan is valid.
func ParsePlan(text string) (ops []Op, bad []string, err error) {
	data, err := planJSON(text)
	if err != nil {
		return nil, nil, err
	}
	var elems []json.RawMessage
	switch data[0] {
	case '[':
		if err := json.Unmarshal(data, &elems); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrBadPlan, err)
		}
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrBadPlan, err)
		}
		list, ok := obj["ops"]
		if !ok {
			if _, single := obj["op"]; !single {
				return nil, nil, fmt.Errorf("%w: the JSON object has no \"ops\" list", ErrBadPlan)
			}
			list = json.RawMessage("[" + string(data) + "]")
		}
		if bytes.Equal(bytes.TrimSpace(list), []byte("null")) {
			return nil, nil, nil
		}
		if err := json.Unmarshal(list, &elems); err != nil {
			return nil, nil, fmt.Errorf("%w: \"ops\" is not a list: %v", ErrBadPlan, err)
		}
	}
	for i, e := range elems {
		var op Op
		if err := json.Unmarshal(e, &op); err != nil {
			bad = append(bad, fmt.Sprintf("op %d is not a valid op object: %v", i+1, err))
			continue
		}
		ops = append(ops, op)
	}
	return ops, bad, nil
}

// planJSON finds the plan in text: the first JSON object, or array of
// objects, that decodes. It looks in the text as it is first (a JSON body
// may itself hold a code fence), then after the first code fence's opening
// line. A few false starts ("[1]", "{the plan}") are skipped.
func planJSON(text string) ([]byte, error) {
	t := strings.TrimSpace(text)
	tries := []string{t}
	if i := strings.Index(t, "```"); i >= 0 {
		if nl := strings.IndexByte(t[i:], '\n'); nl >= 0 {
			tries = append(tries, t[i+nl+1:])
		}
	}
	var firstErr error
	for _, c := range tries {
		off := 0
		for range 8 {
			j := strings.IndexAny(c[off:], "{[")
			if j < 0 {
				break
			}
			off += j
			var v json.RawMessage
			err := json.NewDecoder(strings.NewReader(c[off:])).Decode(&v)
			if err == nil && planShaped(v) {
				return v, nil
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
			off++
		}
	}
	if firstErr != nil {
		return nil, fmt.Errorf("%w: invalid JSON: %v (answer %q)", ErrBadPlan, firstErr, excerpt(text))
	}
	return nil, fmt.Errorf("%w: no JSON plan in the answer %q", ErrBadPlan, excerpt(text))
}

// planShaped reports whether v is an object, or an array that is empty or
// starts with an object (its other elements are checked one by one later).
func planShaped(v json.RawMessage) bool {
	if v[0] == '{' {
		return true
	}
	var elems []json.RawMessage
	if json.Unmarshal(v, &elems) != nil {
		return false
	}
	return len(elems) == 0 || elems[0][0] == '{'
}

func excerpt(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), 120)
}

// clip shortens s to at most n bytes, cutting at a rune boundary and
// marking the cut with "...".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
