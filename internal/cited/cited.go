// Package cited maps the files of a project to the facts that cite them
// (metadata.cites) or name their path in their text, for the tool-call
// hook (`memoryd recall-tool`): when an agent is about to read or edit a
// file, the facts about it are what it needs. The daemon writes the map to
// the state folder (state.CitedFile) after each sync of its search index;
// the hook reads that small file and, when no fact is about the file,
// exits before opening anything else.
package cited

import (
	"encoding/json"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/state"
)

// Map is the facts about each file: the key is the project's slug ("" for
// a global fact, which holds in every project), a NUL, and the file's
// path relative to the project's root, slash-separated.
type Map struct {
	Files map[string][]string `json:"files"`
}

// pathWord is a path as a fact's text names one: at least one folder and
// a file name with an extension ("src/db/migrate.go").
var pathWord = regexp.MustCompile(`(?:[A-Za-z0-9_.@+-]+/)+[A-Za-z0-9_.+-]+\.[A-Za-z0-9]+`)

// Build is the map of the facts of snap: those waiting in the inbox and
// superseded ones are left out, as search leaves them out.
func Build(snap index.Snapshot) Map {
	m := Map{Files: map[string][]string{}}
	for _, f := range snap.Memories {
		if index.InInbox(f.File) || f.Superseded() {
			continue
		}
		paths := map[string]bool{}
		for _, c := range f.Cites {
			paths[clean(c.Path)] = true
		}
		for _, p := range pathWord.FindAllString(f.Description+"\n"+f.Body, -1) {
			paths[clean(p)] = true
		}
		for p := range paths {
			if p != "" && p != "." && !strings.HasPrefix(p, "../") {
				k := key(f.Scope(), p)
				m.Files[k] = append(m.Files[k], f.File)
			}
		}
	}
	for _, files := range m.Files {
		slices.Sort(files)
	}
	return m
}

func clean(p string) string { return path.Clean(strings.TrimPrefix(p, "./")) }

func key(slug, p string) string { return slug + "\x00" + p }

// Facts returns the facts about the file at rel (relative to the root of
// project slug, slash-separated): the project's and the global ones.
func (m Map) Facts(slug, rel string) []string {
	rel = clean(rel)
	out := slices.Clone(m.Files[key(slug, rel)])
	if slug != "" {
		out = append(out, m.Files[key("", rel)]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// About returns the facts about files (absolute, or relative to cwd):
// those about each file relative to its project's root (project.Root),
// each once, and the files that have any, as they are relative to their
// project. A file outside every project is about nothing.
func (m Map) About(cwd string, files []string) (rels, facts []string) {
	for _, file := range files {
		if !filepath.IsAbs(file) {
			file = filepath.Join(cwd, file)
		}
		root := project.Root(filepath.Dir(file))
		rel, err := filepath.Rel(root, file)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if fs := m.Facts(project.Slug(root), rel); len(fs) > 0 && !slices.Contains(rels, rel) {
			rels, facts = append(rels, rel), append(facts, fs...)
		}
	}
	slices.Sort(facts)
	return rels, slices.Compact(facts)
}

// Write writes m to the state folder; it writes nothing when the file
// holds m already.
func Write(stateDir string, m Map) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := state.Ensure(stateDir); err != nil {
		return err
	}
	_, err = atomicfile.Write(stateDir, state.CitedFile, data, 0o600)
	return err
}

// Read reads the map the daemon wrote; an error matching fs.ErrNotExist
// when there is none (no daemon ran yet).
func Read(stateDir string) (Map, error) {
	var m Map
	err := state.ReadJSON(stateDir, state.CitedFile, &m)
	return m, err
}
