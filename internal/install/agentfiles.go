package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	"github.com/tailscale/hujson"

	"github.com/memoryd/memoryd/internal/atomicfile"
)

// Uninstall gives the agents' files back as they were. Removing memoryd's
// part from a file gives back its bytes in every layout but a few: an
// empty object install spread over lines ("{}" became "{\n  …\n}"), an
// empty list or object of the user's that install filled (then removed as
// memoryd's). And only install knows whether it created a file, which
// uninstall deletes, or found it — `{}` and all. So install records, for
// each file it writes, whether the file was there and its bytes before
// (when small: ~/.claude.json, the big one, is rewritten by Claude Code
// all the time anyway); uninstall writes those bytes back when what is
// left of the file means the same (as JSON, comments included), deletes
// only a file install created, and forgets the record.

// fileRecordsName is the record, in $XDG_STATE_HOME/memoryd.
const fileRecordsName = "agent-files.json"

// fileRecordMax bounds the bytes recorded of one file.
const fileRecordMax = 64 << 10

// fileRecord is what install recorded of one agent file.
type fileRecord struct {
	Created bool   `json:"created"`          // the file was not there
	Before  []byte `json:"before,omitempty"` // its bytes before install, when small
}

// fileRecords are the records by path.
type fileRecords map[string]fileRecord

func (o *Options) fileRecordsPath() string {
	return filepath.Join(filepath.Dir(o.claudeMemoryRecordPath()), fileRecordsName)
}

// loadFileRecords reads the records; a missing or unreadable record is
// none (uninstall then falls back on what the file holds).
func (o *Options) loadFileRecords() fileRecords {
	recs := fileRecords{}
	if data, err := os.ReadFile(o.fileRecordsPath()); err == nil {
		json.Unmarshal(data, &recs)
	}
	return recs
}

// saveFileRecords writes the records, or removes the file when there are
// none.
func (o *Options) saveFileRecords(recs fileRecords) error {
	path := o.fileRecordsPath()
	if len(recs) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("agent file record: %w", err)
		}
		return nil
	}
	data, err := json.MarshalIndent(recs, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		_, err = atomicfile.Write(filepath.Dir(path), filepath.Base(path), append(data, '\n'), 0o600)
	}
	if err != nil {
		return fmt.Errorf("agent file record: %w", err)
	}
	return nil
}

// note records the file at path before install first writes it; a record
// of an earlier install stays (it holds the bytes from before memoryd).
// It reports whether it added one.
func (recs fileRecords) note(path string, existed bool, before []byte) bool {
	if _, ok := recs[path]; ok {
		return false
	}
	rec := fileRecord{Created: !existed}
	if existed && len(before) <= fileRecordMax {
		rec.Before = bytes.Clone(before)
		if rec.Before == nil {
			rec.Before = []byte{}
		}
	}
	recs[path] = rec
	return true
}

// forget drops the record of path, reporting whether there was one.
func (recs fileRecords) forget(path string) bool {
	_, ok := recs[path]
	delete(recs, path)
	return ok
}

// sameAs reports whether a, what uninstall left of the step's file, means
// the same as b, its bytes before install: byte for byte, or, for JSON,
// the same values (empty lists and objects aside) and the same comments.
func (s agentStep) sameAs(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if !s.json {
		return false
	}
	va, ca, okA := jsoncMeaning(a)
	vb, cb, okB := jsoncMeaning(b)
	return okA && okB && reflect.DeepEqual(va, vb) && reflect.DeepEqual(ca, cb)
}

// jsoncMeaning returns a JSONC document's value with empty lists and
// objects dropped, and its comments in order.
func jsoncMeaning(data []byte) (any, []string, bool) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	// Standardize blanks comments in the bytes the tree was parsed from:
	// parse a copy, so the caller's file keeps them.
	v, err := hujson.Parse(bytes.Clone(data))
	if err != nil {
		return nil, nil, false
	}
	var comments []string
	collectComments(v, &comments)
	v.Standardize()
	var value any
	if json.Unmarshal(v.Pack(), &value) != nil {
		return nil, nil, false
	}
	return dropEmpty(value), comments, true
}

// collectComments appends the comments in v's extras, in order.
func collectComments(v hujson.Value, out *[]string) {
	add := func(e hujson.Extra) { *out = append(*out, commentsIn(e)...) }
	add(v.BeforeExtra)
	switch c := v.Value.(type) {
	case *hujson.Object:
		for _, m := range c.Members {
			collectComments(m.Name, out)
			collectComments(m.Value, out)
		}
		add(c.AfterExtra)
	case *hujson.Array:
		for _, e := range c.Elements {
			collectComments(e, out)
		}
		add(c.AfterExtra)
	}
	add(v.AfterExtra)
}

// commentsIn returns the comments of an extra (whitespace and comments).
func commentsIn(e []byte) []string {
	var out []string
	for i := 0; i < len(e); {
		switch {
		case bytes.HasPrefix(e[i:], []byte("//")):
			j := bytes.IndexByte(e[i:], '\n')
			if j < 0 {
				j = len(e) - i
			}
			out = append(out, string(bytes.TrimRight(e[i:i+j], "\r")))
			i += j
		case bytes.HasPrefix(e[i:], []byte("/*")):
			j := bytes.Index(e[i+2:], []byte("*/"))
			if j < 0 {
				j = len(e) - i - 4
			}
			out = append(out, string(e[i:i+j+4]))
			i += j + 4
		default:
			i++
		}
	}
	return out
}

// dropEmpty removes empty lists and objects from v, recursively.
func dropEmpty(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			x = dropEmpty(x)
			if isEmptyContainer(x) {
				continue
			}
			out[k] = x
		}
		return out
	case []any:
		out := make([]any, 0, len(t))
		for _, x := range t {
			if x = dropEmpty(x); !isEmptyContainer(x) {
				out = append(out, x)
			}
		}
		return out
	}
	return v
}

func isEmptyContainer(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// isCRLF reports whether data's lines all end in CRLF (and there is one).
func isCRLF(data []byte) bool {
	n := bytes.Count(data, []byte("\n"))
	return n > 0 && bytes.Count(data, []byte("\r\n")) == n
}

// toCRLF ends in CRLF every line of data that ends in a bare LF: the lines
// memoryd added to a CRLF file.
func toCRLF(data []byte) []byte {
	if data == nil {
		return nil
	}
	var b bytes.Buffer
	for i, c := range data {
		if c == '\n' && (i == 0 || data[i-1] != '\r') {
			b.WriteByte('\r')
		}
		b.WriteByte(c)
	}
	return b.Bytes()
}
