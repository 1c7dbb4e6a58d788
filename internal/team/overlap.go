package team

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/index"
)

// comparedFile keeps, in the team's state folder, which team facts (file →
// content hash) were compared with the person's facts, and the folder's
// fingerprint then, also alone in comparedFile+".key": a session start
// whose team folder did not change reads that and compares nothing.
const comparedFile = "compared.json"

// overlapBatch bounds the team facts one call compares: a first look at
// a very large team folder is spread over a few session starts.
const overlapBatch = 1000

type compared struct {
	Key    string            `json:"key"`
	Hashes map[string]string `json:"hashes"`
}

// Overlap is a person's fact that says what a team fact says.
type Overlap struct {
	Team     string // the team's fact, from the project's root: ".memory/x.md"
	Personal string // the person's fact, its file in their memory folder
}

// Overlaps compares the team facts that arrived or changed since it last
// looked (accepted here, or pulled) with the person's facts in
// personalDir — those without a project or of this project, current, not
// readonly, not in the inbox — and returns each person's fact that says the
// same thing (sameAs). stateDir is the person's state folder (what was
// compared is kept in StateDir). It only reads and
// remembers; what to do with an overlap (propose superseding the person's
// fact) is the caller's.
func (f Folder) Overlaps(ctx context.Context, stateDir, personalDir string) ([]Overlap, error) {
	path := filepath.Join(f.StateDir(stateDir), comparedFile)
	key, stable := f.fingerprint("compared")
	if seen, err := os.ReadFile(path + ".key"); err == nil && stable && string(seen) == key {
		return nil, nil // the usual session start: a stat of each file, no parse
	}
	var c compared
	if data, err := os.ReadFile(path); err == nil {
		json.Unmarshal(data, &c) // a broken file: compare again
	}
	snap, err := f.Scan()
	if err != nil || len(snap.Memories) == 0 {
		return nil, err
	}
	todo := snap.Without(func(m *index.Memory) bool { return c.Hashes[m.File] == m.Hash })
	if len(todo.Memories) == 0 {
		return nil, f.remember(path, c, key, stable, true)
	}
	mine, err := index.Scan(personalDir)
	if err != nil {
		return nil, err
	}
	var theirs []stemmed
	for _, m := range mine.Memories {
		if (m.Project == "" || m.Project == f.Slug) && !m.Superseded() && !m.Readonly && !index.InInbox(m.File) {
			theirs = append(theirs, stem(m))
		}
	}
	if c.Hashes == nil {
		c.Hashes = map[string]string{}
	}
	var out []Overlap
	for i, m := range todo.Memories {
		if i == overlapBatch {
			break
		}
		if same := sameAs(stem(m), theirs); same != "" {
			out = append(out, Overlap{Team: DirName + "/" + m.File, Personal: same})
		}
		c.Hashes[m.File] = m.Hash
	}
	return out, f.remember(path, c, key, stable, len(todo.Memories) <= overlapBatch)
}

// remember writes what was compared; the fingerprint only when every fact
// was, so the next call goes on with the rest.
func (f Folder) remember(path string, c compared, key string, stable, all bool) error {
	c.Key = ""
	if stable && all {
		c.Key = key
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if _, err := atomicfile.Write(filepath.Dir(path), filepath.Base(path), data, 0o600); err != nil {
		return err
	}
	_, err = atomicfile.Write(filepath.Dir(path), filepath.Base(path)+".key", []byte(c.Key), 0o600)
	return err
}

// stemmed is a fact with what the comparison reads of it.
type stemmed struct {
	m      *index.Memory
	cd, cb string          // canonical description and body
	stems  map[string]bool // of description and body
}

func stem(m *index.Memory) stemmed {
	return stemmed{m: m, cd: index.Canonical(m.Description), cb: index.Canonical(m.Body), stems: stems(m.Description + " " + m.Body)}
}

// sameAs is the file of the fact of facts that says what t says — the same
// name, the same canonical description or body, or the most word stems in
// common, at least half (sameRule) — "" for none. Unlike SameIn it
// compares with every fact, without a search: a person's facts in scope are
// few, and no search index is opened at a session start.
func sameAs(t stemmed, facts []stemmed) string {
	best, bestScore := "", sameRule
	for _, p := range facts {
		if p.m.Name == t.m.Name || p.cd == t.cd || p.cb == t.cb {
			return p.m.File
		}
		if s := overlap(t.stems, p.stems); s >= bestScore {
			best, bestScore = p.m.File, s
		}
	}
	return best
}

// CompareAgain forgets that the team facts files (".memory/x.md", as
// Overlap.Team names them) were compared, so the next Overlaps compares
// them again: for an overlap whose proposal could not be written (the
// person's repository busy, say).
func (f Folder) CompareAgain(stateDir string, files []string) error {
	path := filepath.Join(f.StateDir(stateDir), comparedFile)
	var c compared
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &c) != nil {
		return nil // nothing remembered: everything is compared next time
	}
	for _, file := range files {
		delete(c.Hashes, strings.TrimPrefix(file, DirName+"/"))
	}
	return f.remember(path, c, "", false, false)
}
