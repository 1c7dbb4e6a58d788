// Package team is a project's team memory: the facts checked in with the
// code in a folder at the root of its repository (DirName, ".memory/"),
// same file format as a person's memory, one fact per file.
//
// It finds that folder from a working directory, reads its facts, builds
// its deterministic index (.memory/MEMORY.md, titled "# Team memory —
// <slug>"), reads who added and last changed each fact from the project's
// git log (one `git log` for the folder), searches it, and checks and
// writes an accepted proposal into it. It never runs a git command that
// changes the project's repository: a person commits what memoryd wrote
// with their change. The person's memory folder is another room (package
// folder); the two never mix on disk.
package team

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
)

// DirName is the team memory folder at a repository's root.
const DirName = ".memory"

// Prefix names a team fact where a person's fact could be meant:
// memory_read "team:project-x.md".
const Prefix = "team:"

// Folder is one project's team memory folder.
type Folder struct {
	Root string // the project's root: the top of its git repository
	Dir  string // Root/.memory
	Slug string // the project's slug (project.Slug), or "team" when it has none
	look *look  // set by Once: the folder's stat, read once
}

// At is the team folder of the project whose root is root, whether or
// not it exists yet.
func At(root string) Folder {
	slug := project.Slug(root)
	if !project.Valid(slug) {
		slug = "team"
	}
	return Folder{Root: root, Dir: filepath.Join(root, DirName), Slug: slug}
}

// Find is the team folder of the project that holds dir: ok is false when
// dir is in no git repository or the repository has no .memory folder. It
// reads a few directory entries and starts no process: it runs at every
// session start.
func Find(dir string) (f Folder, ok bool) {
	root := project.Root(dir)
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return Folder{}, false
	}
	f = At(root)
	fi, err := os.Stat(f.Dir)
	return f, err == nil && fi.IsDir()
}

// Scan reads the team's facts.
func (f Folder) Scan() (index.Snapshot, error) { return index.Scan(f.Dir) }

// StateDir is where memoryd keeps what it derives from this team folder
// (its search index), inside the person's state folder stateDir: one
// folder per project root.
func (f Folder) StateDir(stateDir string) string {
	sum := sha256.Sum256([]byte(f.Root))
	return filepath.Join(stateDir, "team", f.Slug+"-"+hex.EncodeToString(sum[:6]))
}

// Authors is who added and who last changed each team fact, by file name
// relative to the folder, from the project's git history of HEAD: one
// `git log`, read-only.
func (f Folder) Authors(ctx context.Context) (map[string]gitstore.Authorship, error) {
	return gitstore.FolderAuthors(ctx, f.Dir)
}
