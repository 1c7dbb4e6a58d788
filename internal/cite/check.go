package cite

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/memoryd/memoryd/internal/index"
)

// How a cited file differs from the version a fact recorded.
const (
	Changed    = "changed"    // its bytes differ
	Gone       = "gone"       // it is no longer there (deleted, moved, or no longer a file inside the root)
	Unrecorded = "unrecorded" // the cite holds no blob (written by hand): nothing to compare
)

// Change is one cited file that is not the version the fact recorded.
type Change struct {
	Path   string `json:"path"`            // as cited, relative to the project's root
	Change string `json:"change"`          // Changed, Gone or Unrecorded
	Since  string `json:"since,omitempty"` // the fact's metadata.updated (YYYY-MM-DD): when it was written or last confirmed
}

// Result is what a check of one fact found.
type Result struct {
	Changes []Change // the cites that differ, in the fact's order; none: not stale
	// Unchecked: the fact cites files, but its project's root is not on
	// this machine (or not found from here), so nothing was compared.
	Unchecked bool
	Root      string // the project's root the cites were compared in
}

// Stale reports whether the fact may be stale.
func (r Result) Stale() bool { return len(r.Changes) > 0 }

// Checker checks facts' cites from one directory (the caller's: a
// command's working directory, a hook's cwd, the MCP server's). It caches
// each file's blob by path, size and modification time, so checking many
// facts that cite the same files hashes each file once. Safe for
// concurrent use.
type Checker struct {
	dir string

	mu    sync.Mutex
	blobs map[string]blobEntry // by absolute path
	dirs  map[string][2]string // a directory's slug and root ("" root: not a directory)
}

type blobEntry struct {
	size  int64
	mtime time.Time
	blob  string
}

// NewChecker returns a Checker for facts seen from dir; it reads nothing.
func NewChecker(dir string) *Checker {
	return &Checker{dir: dir, blobs: map[string]blobEntry{}, dirs: map[string][2]string{}}
}

// Check compares m's cites with the files now. A fact without cites is
// never stale; a fact whose project's root is not found is Unchecked.
func (c *Checker) Check(m *index.Memory) Result {
	if len(m.Cites) == 0 {
		return Result{}
	}
	root := rootOf(m, c.dir, c.where)
	if root == "" {
		return Result{Unchecked: true}
	}
	res := Result{Root: root}
	since := m.UpdatedDate()
	for _, ct := range m.Cites {
		how := ""
		switch blob := c.current(root, ct.Path); {
		case ct.Blob == "":
			how = Unrecorded
		case blob == "":
			how = Gone
		case blob != ct.Blob:
			how = Changed
		}
		if how != "" {
			res.Changes = append(res.Changes, Change{Path: ct.Path, Change: how, Since: since})
		}
	}
	return res
}

// where is the slug and root of dir, looked up once per checker; a
// directory that is not there has no root.
func (c *Checker) where(dir string) (string, string) {
	c.mu.Lock()
	sr, ok := c.dirs[dir]
	c.mu.Unlock()
	if ok {
		return sr[0], sr[1]
	}
	sr[0], sr[1] = where(dir)
	c.mu.Lock()
	c.dirs[dir] = sr
	c.mu.Unlock()
	return sr[0], sr[1]
}

// current is the blob of the cited file rel in root now, "" when it is not
// a regular file inside root.
func (c *Checker) current(root, rel string) string {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return ""
	}
	if _, ok := within(root, real); !ok {
		return ""
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	c.mu.Lock()
	e, ok := c.blobs[real]
	c.mu.Unlock()
	if ok && e.size == fi.Size() && e.mtime.Equal(fi.ModTime()) {
		return e.blob
	}
	blob, fi, err := blobFile(real)
	if err != nil {
		return ""
	}
	c.mu.Lock()
	c.blobs[real] = blobEntry{fi.Size(), fi.ModTime(), blob}
	c.mu.Unlock()
	return blob
}

// File checks the fact in the memory folder's file rel, reading it only
// when it may cite anything: the cheap path for the surfaces that show a
// few facts by file (search hits, context lines). A file that cannot be
// read or parsed is not stale.
func (c *Checker) File(memDir, rel string) Result {
	data, err := index.ReadPlain(memDir, rel)
	if err != nil || !bytes.Contains(data, []byte("cites:")) {
		return Result{}
	}
	m, err := index.Parse(rel, data)
	if err != nil {
		return Result{}
	}
	return c.Check(m)
}

// Marker is the short note a person or a model reads next to a fact that
// may be stale: "may be stale: src/app.go changed since 2026-11-02";
// "" for none.
func Marker(changes []Change) string {
	if len(changes) == 0 {
		return ""
	}
	parts := make([]string, len(changes))
	for i, ch := range changes {
		switch ch.Change {
		case Gone:
			parts[i] = ch.Path + " deleted or moved"
		case Unrecorded:
			parts[i] = ch.Path + " (no version recorded)"
		default:
			parts[i] = ch.Path + " changed"
		}
	}
	s := "may be stale: " + strings.Join(parts, ", ")
	if since := changes[0].Since; since != "" {
		s += " since " + since
	}
	return s
}

// MarkLines appends " (may be stale: …)" to the lines of text, an index as
// context prints it, that list a fact check finds stale: lines
// "- [Title](file.md) …". check is called once per listed file.
func MarkLines(text []byte, check func(file string) string) []byte {
	if !bytes.Contains(text, []byte("](")) {
		return text
	}
	var out bytes.Buffer
	out.Grow(len(text))
	for line := range bytes.Lines(text) {
		body := bytes.TrimSuffix(line, []byte("\n"))
		if file := listedFile(body); file != "" {
			if note := check(file); note != "" {
				out.Write(body)
				out.WriteString(" (" + note + ")")
				if len(body) < len(line) {
					out.WriteByte('\n')
				}
				continue
			}
		}
		out.Write(line)
	}
	return out.Bytes()
}

// listedFile is the memory file an index line "- [Title](file.md) — …"
// links to, "" for any other line.
func listedFile(line []byte) string {
	if !bytes.HasPrefix(line, []byte("- [")) {
		return ""
	}
	_, rest, ok := bytes.Cut(line, []byte("]("))
	if !ok {
		return ""
	}
	file, _, ok := bytes.Cut(rest, []byte(")"))
	if !ok || !index.IsMemory(string(file)) || index.IsIndex(string(file)) {
		return ""
	}
	return string(file)
}
