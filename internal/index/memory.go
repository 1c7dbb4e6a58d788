package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/verdicts"
)

// Memory is one parsed memory file.
//
// A missing name is derived from the file name (without ".md", and without a
// leading "<type>-" when the file has a type), so every memory has a Name and a
// title in the index. A missing description is allowed: the file is still
// indexed, with no " — description" part. A missing or unknown type puts the
// file in the index's "Other" section.
//
// Memories returned by Parse and held in a Snapshot are shared: copy one
// (c := *m) before changing its fields.
type Memory struct {
	File        string   // path relative to the memory folder, slash-separated ("feedback-prefers-tabs.md")
	Name        string   // frontmatter name, or derived from File when missing
	Title       string   // frontmatter title, may be ""
	Description string   // frontmatter description, may be ""
	Type        string   // metadata.type, else top-level type; trimmed and lower-cased; "" if missing
	Readonly    bool     // metadata.readonly: true (also "yes", "on", "1")
	Project     string   // metadata.project as written: a project slug, "" for a global fact (see Scope)
	Updated     string   // metadata.updated as written, normally "YYYY-MM-DD" (see UpdatedDate)
	Pinned      bool     // metadata.pinned: true (also "yes", "on", "1"): listed whatever the index budget
	Sources     []Source // metadata.source: where the fact came from; nil for a file without it
	Cites       []Cite   // metadata.cites: the files the fact rests on, with their blobs; nil for none
	// SupersededBy is metadata.superseded_by: the file of the fact that
	// replaced this one ("" for a current fact). A superseded fact stays in
	// the folder, readable by show and why, but is in no index, and search
	// returns it only when asked for every version.
	SupersededBy string
	SupersededAt string // metadata.superseded_at: the date it was superseded, "YYYY-MM-DD"
	Body         string // text after the frontmatter, LF line endings
	Hash         string // hex sha256 of the raw file bytes as read; "" for a new memory

	parsed bool       // made by Parse: front and orig are set
	front  string     // frontmatter text as read (LF), re-parsed by Format to keep unknown keys
	orig   fields     // the known fields as read, so Format touches only what changed
	line   *entryLine // the index line rendered at parse time

	absorbed []absorbedKey // other files' keys for Format to add (Absorb)
}

// fields are the frontmatter keys memoryd understands.
type fields struct {
	name, title, description, typ string
	readonly                      bool
	project, updated              string
	pinned                        bool
	sources                       string // encodeSources of Memory.Sources
	cites                         string // encodeCites of Memory.Cites
	supersededBy, supersededAt    string
}

func (m *Memory) fields() fields {
	return fields{m.Name, m.Title, m.Description, m.Type, m.Readonly, m.Project, m.Updated, m.Pinned, encodeSources(m.Sources), encodeCites(m.Cites), m.SupersededBy, m.SupersededAt}
}

// Scope returns the project whose index lists m: Project when it is a valid
// project slug (project.Valid), else "" — a global fact. A fact whose
// metadata.project is not a valid slug is listed in MEMORY.md with the
// global ones, and MEMORY.md's banner names it (see Snapshot.BadProjects).
func (m *Memory) Scope() string {
	if project.Valid(m.Project) {
		return m.Project
	}
	return ""
}

// Superseded reports whether another fact replaced m (metadata.superseded_by).
func (m *Memory) Superseded() bool { return m.SupersededBy != "" }

// UpdatedDate returns metadata.updated as a sortable "YYYY-MM-DD", or "" when
// it does not start with a date. It reads loosely what people write: one-digit
// months and days ("2025-3-7"), and a time after the date
// ("2025-03-07T10:00:00Z", "2025-03-07 10:00").
func (m *Memory) UpdatedDate() string {
	y, mo, d, ok := parseDate(m.Updated)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, mo, d)
}

// parseDate reads the date at the start of s as UpdatedDate describes.
func parseDate(s string) (y, mo, d int, ok bool) {
	num := func(s string, lo, hi int) (n, used int) {
		for used < len(s) && used < hi && s[used] >= '0' && s[used] <= '9' {
			n = n*10 + int(s[used]-'0')
			used++
		}
		if used < lo {
			return 0, 0
		}
		return n, used
	}
	y, i := num(s, 4, 4)
	if i == 0 || i >= len(s) || s[i] != '-' {
		return 0, 0, 0, false
	}
	mo, j := num(s[i+1:], 1, 2)
	i += 1 + j
	if j == 0 || i >= len(s) || s[i] != '-' || mo < 1 || mo > 12 {
		return 0, 0, 0, false
	}
	d, j = num(s[i+1:], 1, 2)
	i += 1 + j
	if j == 0 || d < 1 || d > 31 || i < len(s) && s[i] != 'T' && s[i] != 't' && s[i] != ' ' {
		return 0, 0, 0, false
	}
	return y, mo, d, true
}

// ParseError is why a memory file could not be read. Line is the 1-based line
// of the file where the problem is, or 0 when it concerns the whole file.
type ParseError struct {
	File string
	Line int
	Msg  string
}

// Error returns "file:line: msg", or "file: msg" when Line is 0.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// NewMemory returns a memory the daemon is about to write, named
// "<typ>-<name>.md" (or "<name>.md" when typ is empty). Its Format output
// holds name, description and metadata.type, in that order.
func NewMemory(typ, name, description, body string) *Memory {
	file := name + ".md"
	if typ != "" {
		file = typ + "-" + file
	}
	return &Memory{File: file, Name: name, Description: description, Type: typ,
		Body: toLF(body)}
}

const bom = "\uFEFF"

// Parse reads one memory file: YAML frontmatter between "---" lines at the
// very top, then the body. A UTF-8 byte order mark and CRLF line endings are
// accepted (Body has LF endings). rel names the file in errors and in File.
//
// Every failure is a *ParseError naming the file and, where there is one, the
// line: a file over MaxFileSize, bytes that are not UTF-8, git conflict
// markers, no frontmatter or no closing "---", YAML syntax errors,
// frontmatter that is not a mapping, duplicate keys, a known key (name,
// title, description, type) that is not a single value, or a metadata value
// that is not a mapping. metadata.project and metadata.updated that are not
// a single value, like a readonly or pinned flag that is not "true", are
// read as unset rather than refused: they only order and place the index.
//
// A line "=======" alone counts as a conflict marker only when the file also
// has a "<<<<<<<", "|||||||" or ">>>>>>>" marker line, because on its own it
// is a markdown heading underline.
func Parse(rel string, data []byte) (*Memory, error) {
	if len(data) > MaxFileSize {
		return nil, &ParseError{rel, 0, fmt.Sprintf("file is %d bytes, more than the limit of %d", len(data), MaxFileSize)}
	}
	return parse(rel, string(data), Hash(data), nil)
}

// Hash is a file's Memory.Hash: the hex sha256 of its bytes.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// parse is Parse of the file's text, whose sha256 is hash. The Memory
// shares the text's bytes.
func parse(rel, data, hash string, set *verdicts.Set) (*Memory, error) {
	if !utf8.ValidString(data) {
		return nil, &ParseError{rel, invalidUTF8Line([]byte(data)), "not valid UTF-8 text"}
	}
	text := toLF(strings.TrimPrefix(data, bom))
	if line := conflictMarkerLine(text); line > 0 {
		return nil, &ParseError{rel, line, "git conflict marker: finish the merge and remove the markers"}
	}
	front, body, err := splitFrontmatter(rel, text)
	if err != nil {
		return nil, err
	}
	f, err := readFrontmatter(rel, front)
	if err != nil {
		return nil, err
	}
	if f.name == "" {
		f.name = nameFromFile(rel, f.typ)
	}
	m := &Memory{
		File: rel, Name: f.name, Title: f.title, Description: f.description,
		Type: f.typ, Readonly: f.readonly, Project: f.project, Updated: f.updated, Pinned: f.pinned,
		Sources: decodeSources(f.sources), Cites: decodeCites(f.cites), SupersededBy: f.supersededBy, SupersededAt: f.supersededAt, Body: body, Hash: hash,
		parsed: true, front: front, orig: f,
	}
	m.line = newEntryLine(m, set)
	return m, nil
}

// toLF turns CRLF line endings into LF. Carriage returns right before a line
// feed all go ("a\r\r\n" is "a\n"), so that toLF(toLF(s)) == toLF(s).
func toLF(s string) string {
	if !strings.Contains(s, "\r\n") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			for len(b) > 0 && b[len(b)-1] == '\r' {
				b = b[:len(b)-1]
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// nameFromFile derives a name for a file whose frontmatter has none:
// "sub/feedback-tabs.md" with type "feedback" gives "tabs".
func nameFromFile(rel, typ string) string {
	base := strings.TrimSuffix(path.Base(rel), ".md")
	if typ != "" {
		if rest, ok := strings.CutPrefix(base, typ+"-"); ok && rest != "" {
			return rest
		}
	}
	return base
}

// splitFrontmatter returns the text between the opening and closing "---"
// lines (trailing blanks allowed on both) and the text after the closing one.
func splitFrontmatter(rel, text string) (front, body string, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if !isFence(first) {
		return "", "", &ParseError{rel, 1, `no frontmatter: a memory file starts with a "---" line`}
	}
	for off := 0; off < len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		next := len(rest)
		if end >= 0 {
			end += off
			next = end + 1
		} else {
			end = len(rest)
		}
		if isFence(rest[off:end]) {
			return rest[:off], rest[next:], nil
		}
		off = next
	}
	return "", "", &ParseError{rel, 1, `frontmatter is never closed by a "---" line`}
}

func isFence(line string) bool {
	return strings.TrimRight(line, " \t") == "---"
}

// conflictMarkerLine returns the 1-based line of the first git conflict
// marker in text, or 0.
func conflictMarkerLine(text string) int {
	if !strings.Contains(text, "<<<<<<<") && !strings.Contains(text, ">>>>>>>") &&
		!strings.Contains(text, "|||||||") {
		return 0
	}
	strong := false
	first := 0
	for i, line := range lines(text) {
		switch {
		case isMarker(line, "<<<<<<<"), isMarker(line, ">>>>>>>"), isMarker(line, "|||||||"):
			strong = true
		case strings.TrimRight(line, " \t\r") == "=======":
		default:
			continue
		}
		if first == 0 {
			first = i + 1
		}
		if strong {
			return first
		}
	}
	return 0
}

func isMarker(line, marker string) bool {
	rest, ok := strings.CutPrefix(line, marker)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r')
}

// lines iterates over the lines of text with their 0-based index.
func lines(text string) func(yield func(int, string) bool) {
	return func(yield func(int, string) bool) {
		i := 0
		for line := range strings.SplitSeq(text, "\n") {
			if !yield(i, line) {
				return
			}
			i++
		}
	}
}

// invalidUTF8Line returns the 1-based line holding the first byte that is
// not valid UTF-8.
func invalidUTF8Line(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		i += size
	}
	return line
}
