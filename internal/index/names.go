// Package index reads the memory files of a memory folder and builds the
// indexes from their frontmatter: MEMORY.md for the global facts and
// MEMORY.<slug>.md for each project's.
//
// Parse and Format read and write one memory file; BuildAll turns a Snapshot
// of parsed files into the bytes of every index file within a budget (a
// pure, deterministic function), and Context the text an agent loads at
// session start; Store keeps a cache of parsed files so that a change to one
// file costs one read, and writes each index file only when its bytes
// change.
//
// Paths handed to and returned by this package are slash-separated and
// relative to the memory folder ("feedback-x.md", "sub/project-y.md").
package index

import (
	"strings"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/protocol"
)

// Reserved file names at the top of a memory folder.
const (
	IndexFile      = "MEMORY.md"      // the generated index of global facts; see ProjectIndexFile
	ConflictsFile  = "_CONFLICTS.md"  // unresolved contradictions flagged by compaction
	ProtocolFile   = protocol.File    // the write protocol for agents
	AttributesFile = ".gitattributes" // union merges for the generated files
)

// MaxFileSize is the largest memory file Parse accepts, in bytes.
const MaxFileSize = 256 << 10

// Types are the known memory types, in the order of their MEMORY.md sections.
var Types = []string{"user", "feedback", "project", "reference"}

// Ignored reports whether rel is never indexed or committed: a path with a
// hidden component (a dot file, or anything inside a hidden directory) other
// than the top-level .gitattributes, editor leftovers (*~, .#*, *.swp, *.swx,
// 4913, *___jb_tmp___, *___jb_old___, *.tmp), memoryd's own temporary files,
// and every name that does not end in ".md" (case-sensitive). Empty paths and
// paths with "." or ".." components are ignored too.
//
// A directory name such as "sub" is Ignored because it does not end in .md;
// use IgnoredDir to decide whether to descend into a directory.
func Ignored(rel string) bool {
	if rel == AttributesFile {
		return false
	}
	if rel == "" || IgnoredDir(rel) {
		return true
	}
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	return ignoredBase(base) || !strings.HasSuffix(base, ".md")
}

// IgnoredDir reports whether the directory rel, and everything inside it, is
// ignored: it has an empty, hidden, "." or ".." component. The memory folder
// itself ("" or ".") is not ignored.
func IgnoredDir(rel string) bool {
	if rel == "" || rel == "." {
		return false
	}
	for part := range strings.SplitSeq(rel, "/") {
		if part == "" || part[0] == '.' {
			return true
		}
	}
	return false
}

// ignoredBase reports editor leftovers and temporary files by base name.
func ignoredBase(base string) bool {
	switch {
	case base == "4913",
		strings.HasSuffix(base, "~"),
		strings.HasPrefix(base, ".#"),
		strings.HasSuffix(base, ".swp"),
		strings.HasSuffix(base, ".swx"),
		strings.HasSuffix(base, ".tmp"),
		strings.HasSuffix(base, "___jb_tmp___"),
		strings.HasSuffix(base, "___jb_old___"),
		atomicfile.IsTemp(base):
		return true
	}
	return false
}

// Reserved reports whether rel is one of the top-level files memoryd manages
// itself: MEMORY.md, every MEMORY.*.md (the project indexes, see
// ProjectIndexFile), _CONFLICTS.md, PROTOCOL.md and .gitattributes. The same
// names inside a subdirectory are ordinary files.
func Reserved(rel string) bool {
	switch rel {
	case IndexFile, ConflictsFile, ProtocolFile, AttributesFile:
		return true
	}
	return indexPattern(rel)
}

// indexPattern reports whether rel matches the .gitattributes pattern
// "MEMORY.*.md" at the top of the folder.
func indexPattern(rel string) bool {
	rest, ok := strings.CutPrefix(rel, "MEMORY.")
	return ok && strings.HasSuffix(rest, ".md") && !strings.Contains(rest, "/")
}

// IsIndex reports whether rel is the name of an index file memoryd
// generates: MEMORY.md, or a project index MEMORY.<slug>.md with a valid
// slug (project.Valid). It looks at the name only. Only such names are ever
// written or removed by WriteIndex, and a project index only when the file
// there is one memoryd generated (GeneratedIndex): a person's
// "MEMORY.notes.md" is left alone. Another MEMORY.*.md (say
// "MEMORY.Notes.md") is reserved, committed, and left alone.
func IsIndex(rel string) bool {
	if rel == IndexFile {
		return true
	}
	_, ok := ProjectIndexSlug(rel)
	return ok
}

// ProjectIndexSlug returns the slug of the project index rel,
// "MEMORY.<slug>.md", and whether rel is one.
func ProjectIndexSlug(rel string) (slug string, ok bool) {
	if !indexPattern(rel) {
		return "", false
	}
	slug = strings.TrimSuffix(strings.TrimPrefix(rel, "MEMORY."), ".md")
	return slug, project.Valid(slug)
}

// Tracked reports whether the daemon commits rel: every path that is not
// Ignored, which includes the reserved .md files and .gitattributes, unless
// its name is refused by NameError.
func Tracked(rel string) bool { return !Ignored(rel) && NameError(rel) == nil }

// IsMemory reports whether rel is a memory file: not ignored, not reserved,
// and ending in ".md". Files in subdirectories are memories too. A memory
// file whose name NameError refuses is still one, so that it is listed as
// unreadable rather than silently left out; it is not Tracked.
func IsMemory(rel string) bool {
	return !Ignored(rel) && !Reserved(rel) && strings.HasSuffix(rel, ".md")
}

// NameError returns a *ParseError when rel is a name memoryd must never
// commit, or nil. That is a name with a control character: a byte below
// 0x20 (tab, newline, escape…) or 0x7f. git commits such a name, but go-git,
// which memoryd reads the repository with, refuses a tree that holds one —
// on this machine and on every clone that pulls it, even after the file is
// deleted — so every later commit would fail. The file stays on disk,
// uncommitted, until the user renames it.
func NameError(rel string) error {
	for i := 0; i < len(rel); i++ {
		if c := rel[i]; c < 0x20 || c == 0x7f {
			return &ParseError{File: rel, Msg: "file name contains a control character; rename it"}
		}
	}
	return nil
}

// ValidName reports whether name is a kebab-case slug the daemon may use in a
// file name: ^[a-z0-9]+(-[a-z0-9]+)*$ and at most 64 bytes.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && name[i-1] != '-':
		default:
			return false
		}
	}
	return true
}
