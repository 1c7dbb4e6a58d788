package team

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// Index is the bytes of the team folder's MEMORY.md for snap within the
// budget b: a project index (index.BuildIndex) of every fact in the folder
// as the project's, whatever its metadata.project says, titled "# Team
// memory — <slug>". Pure and deterministic, like the person's indexes: the
// links are relative to the folder, so an agent that loads the file with
// `@.memory/MEMORY.md` can follow them.
func Index(snap index.Snapshot, slug string, b index.Budget) []byte {
	mems := make([]*index.Memory, 0, len(snap.Memories))
	for _, m := range snap.Memories {
		c := *m
		c.Project = slug
		mems = append(mems, &c)
	}
	data := index.BuildIndex(index.Snapshot{Memories: mems}, slug, b)
	return retitle(data, slug)
}

// retitle replaces a project index's title with the team's.
func retitle(data []byte, slug string) []byte {
	old := "# Memory — " + slug + "\n"
	if !bytes.HasPrefix(data, []byte(old)) {
		return data
	}
	return append([]byte("# Team memory — "+slug+"\n"), data[len(old):]...)
}

// WriteIndex writes the folder's MEMORY.md from its facts as they are on
// disk (atomically, only when its bytes change) and reports whether it
// changed. memoryd calls it only when a person accepts a proposal or runs a
// command; it never commits it.
func (f Folder) WriteIndex(b index.Budget) (changed bool, err error) {
	snap, err := f.Scan()
	if err != nil {
		return false, err
	}
	return atomicfile.Write(f.Dir, index.IndexFile, Index(snap, f.Slug, b), 0o644)
}

// link is an index line's link target, after a "]" that is not escaped.
var link = regexp.MustCompile(`([^\\])\]\(([^()\s]+\.md)\)`)

// Context is the team's section of what an agent loads at session start
// (`memoryd context`): Index of the facts hold does not hold, with the
// links made relative to the project's root (".memory/x.md", a file the
// agent can open, and the name memory_read takes), then one line per held
// fact with the gate's reason. It has a budget of its own, b, after the
// person's. The notes of n go after each listed fact's line. nil when the
// folder has no facts. CachedContext is the same, cheaper.
func (f Folder) Context(b index.Budget, hold func(*index.Memory) string, n Notes) ([]byte, error) {
	sec, err := f.section(b, hold)
	if err != nil {
		return nil, err
	}
	return sec.byline(n).finish(n), nil
}

// Notes are what goes after a listed team fact's line, each when set.
type Notes struct {
	// Byline is who added and last changed the fact rel (see Byline).
	// It is called once for all the facts: it may read them first.
	Byline func() func(rel string) string
	// Stale is the note of a fact whose cited files changed, "" for none;
	// it is asked only of facts that cite files.
	Stale func(rel string) string
}

// section is the team's section before its notes, with plain links.
type section struct {
	Text  []byte          `json:"text"`  // nil: no facts
	Cited map[string]bool `json:"cited"` // the listed facts that cite files
}

func (f Folder) section(b index.Budget, hold func(*index.Memory) string) (section, error) {
	snap, err := f.Scan()
	if err != nil || len(snap.Memories) == 0 {
		return section{}, err
	}
	var held []string
	cited := map[string]bool{}
	given := snap.Without(func(m *index.Memory) bool {
		if why := hold(m); why != "" {
			held = append(held, fmt.Sprintf("> %s/%s is held from agents: %s\n", DirName, m.File, why))
			return true
		}
		if len(m.Cites) > 0 {
			cited[m.File] = true
		}
		return false
	})
	text := Index(given, f.Slug, b)
	return section{Text: append(text, strings.Join(held, "")...), Cited: cited}, nil
}

// byline is the section with n's bylines.
func (s section) byline(n Notes) section {
	if s.Text != nil && n.Byline != nil {
		s.Text = cite.MarkLines(s.Text, n.Byline())
	}
	return s
}

// finish is the section with n's stale notes and its links into the
// folder.
func (s section) finish(n Notes) []byte {
	if s.Text == nil {
		return nil
	}
	text := s.Text
	if n.Stale != nil && len(s.Cited) > 0 {
		text = cite.MarkLines(text, func(rel string) string {
			if !s.Cited[rel] {
				return ""
			}
			return n.Stale(rel)
		})
	}
	return link.ReplaceAll(text, []byte("$1]("+DirName+"/$2)"))
}

// Exists reports whether the folder is there.
func (f Folder) Exists() bool {
	fi, err := os.Stat(f.Dir)
	return err == nil && fi.IsDir()
}

// Bylines is Notes.Byline for authors (see Byline).
func Bylines(authors func() map[string]gitstore.Authorship) func() func(rel string) string {
	return func() func(rel string) string {
		a := authors()
		return func(rel string) string {
			who, ok := a[rel]
			return Byline(who, ok)
		}
	}
}

// CheckCites is chk's check of the team fact rel's cited files: paths
// from the project's root, whatever its metadata.project says (a team
// fact belongs to the repository it is in). chk must be made in a folder
// of the project.
func (f Folder) CheckCites(chk *cite.Checker, rel string) cite.Result {
	data, err := index.ReadPlain(f.Dir, rel)
	if err != nil || !bytes.Contains(data, []byte("cites:")) {
		return cite.Result{}
	}
	m, err := index.Parse(rel, data)
	if err != nil {
		return cite.Result{}
	}
	c := *m
	c.Project = f.Slug
	return chk.Check(&c)
}
