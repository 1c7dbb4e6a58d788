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
// person's. note, when set, is a note put after a listed fact's line (see
// Notes). nil when the folder has no facts.
func (f Folder) Context(b index.Budget, hold func(*index.Memory) string, note func(rel string) string) ([]byte, error) {
	snap, err := f.Scan()
	if err != nil {
		return nil, err
	}
	if len(snap.Memories) == 0 {
		return nil, nil
	}
	var held []string
	given := snap.Without(func(m *index.Memory) bool {
		if why := hold(m); why != "" {
			held = append(held, fmt.Sprintf("> %s/%s is held from agents: %s\n", DirName, m.File, why))
			return true
		}
		return false
	})
	text := Index(given, f.Slug, b)
	if note != nil {
		text = cite.MarkLines(text, note)
	}
	text = link.ReplaceAll(text, []byte("$1]("+DirName+"/$2)"))
	if len(held) > 0 {
		text = append(text, strings.Join(held, "")...)
	}
	return text, nil
}

// Exists reports whether the folder is there.
func (f Folder) Exists() bool {
	fi, err := os.Stat(f.Dir)
	return err == nil && fi.IsDir()
}

// Notes is the note Context puts after each listed fact: its byline (who
// added and last changed it, Byline) and stale, the note of a fact whose
// cited files changed ("" for none).
func Notes(authors map[string]gitstore.Authorship, stale func(rel string) string) func(rel string) string {
	return func(rel string) string {
		a, ok := authors[rel]
		note := Byline(a, ok)
		if s := stale(rel); s != "" {
			note += "; " + s
		}
		return note
	}
}
