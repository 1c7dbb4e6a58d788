// Package cite is what memoryd knows about the files a fact rests on
// (metadata.cites): it records them — a path relative to the root of the
// fact's project and the git blob hash of the file then — and checks them,
// cheaply and locally, against the files as they are now. A fact whose
// cited file changed or is gone "may be stale"; the surfaces that show a
// fact (context, recall, search, MCP, list, show, check) say so with
// Marker. Nothing here changes a fact: staleness is shown, never acted on.
//
// The current version of a cited file is its working-tree bytes hashed as
// git hashes a blob (sha1 of "blob <size>\0" and the bytes), so a file
// edited and not yet committed counts as changed, no git process runs, and
// a project that is not a git repository works too. (A file git stores
// through a clean filter — LFS, autocrlf on Windows — hashes differently
// from its tracked blob; memoryd compares working trees with working trees,
// so that only matters against a hash written by another tool.)
package cite

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
)

// ErrRefused is why a path cannot be cited: outside the project's root,
// missing, not a regular file. It comes wrapped with the path and the fix.
var ErrRefused = errors.New("cannot be cited")

// MaxCites is the most files one fact may cite.
const MaxCites = 20

// Blob returns the git blob hash of data: the object name `git hash-object`
// prints for a file holding data.
func Blob(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// blobFile hashes the file at abs as Blob does, reading it once, and
// returns its size and modification time with the hash.
func blobFile(abs string) (blob string, fi fs.FileInfo, err error) {
	f, err := os.Open(abs)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return "", nil, err
	}
	if !fi.Mode().IsRegular() {
		return "", nil, fmt.Errorf("%s is not a regular file", abs)
	}
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(fi.Size(), 10) + "\x00"))
	n, err := io.Copy(h, io.LimitReader(f, fi.Size()))
	if err != nil {
		return "", nil, err
	}
	if n != fi.Size() {
		return "", nil, fmt.Errorf("%s changed while it was read", abs)
	}
	return hex.EncodeToString(h.Sum(nil)), fi, nil
}

// Resolve turns p, a path a person or a model gave, into the path of a
// file inside root, relative to it and slash-separated. A relative p is
// taken from base (a folder inside root; "" means root). It refuses, with
// an error wrapping ErrRefused that names the path: an empty path, a path
// that leaves root (with "..", absolute elsewhere, or through a symbolic
// link that points out of it), a path into .git, a path that does not
// exist, and anything but a regular file.
func Resolve(root, base, p string) (string, error) {
	orig := p
	p = strings.TrimSpace(p)
	if p == "" {
		return "", fmt.Errorf("an empty path %w", ErrRefused)
	}
	if base == "" {
		base = root
	}
	abs := filepath.FromSlash(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(base, abs)
	}
	abs = filepath.Clean(abs)
	outside := func() error {
		return fmt.Errorf("%q %w: it is outside the project's root %s; a fact cites files of its own project only", orig, ErrRefused, root)
	}
	rel, ok := within(root, abs)
	if !ok {
		// base may be reached through a link (a shell's $PWD): compare
		// resolved paths before giving up.
		real, err := filepath.EvalSymlinks(filepath.Dir(abs))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("%q %w: no such file", orig, ErrRefused)
			}
			return "", outside()
		}
		if rel, ok = within(root, filepath.Join(real, filepath.Base(abs))); !ok {
			return "", outside()
		}
		abs = filepath.Join(root, rel)
	}
	if rel == "." || rel == ".git" || strings.HasPrefix(rel, ".git"+string(filepath.Separator)) {
		return "", fmt.Errorf("%q %w: cite a file of the project, not its root or its .git folder", orig, ErrRefused)
	}
	real, err := filepath.EvalSymlinks(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%q %w: no such file in %s", orig, ErrRefused, root)
	case err != nil:
		return "", fmt.Errorf("%q %w: %v", orig, ErrRefused, err)
	}
	if _, ok := within(root, real); !ok {
		return "", fmt.Errorf("%q %w: it is a symbolic link to %s, outside the project's root %s", orig, ErrRefused, real, root)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%q %w: %v", orig, ErrRefused, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%q %w: it is not a regular file (cite the files in a folder, not the folder)", orig, ErrRefused)
	}
	return filepath.ToSlash(rel), nil
}

// within returns abs relative to root when it is inside it.
func within(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Record returns the cites of paths (see Resolve; a "#symbol" after a path
// is kept) with the blob of each file now, in the order given, without
// duplicates. Every path must resolve: the first that does not is the
// error.
func Record(root, base string, paths []string) ([]index.Cite, error) {
	if len(paths) > MaxCites {
		return nil, fmt.Errorf("%d paths %w: a fact cites at most %d files", len(paths), ErrRefused, MaxCites)
	}
	var out []index.Cite
	seen := map[string]bool{}
	for _, p := range paths {
		c := index.ParseCite(p)
		c.Blob = "" // never trusted from the caller
		rel, err := Resolve(root, base, c.Path)
		if err != nil {
			return nil, err
		}
		c.Path = rel
		if seen[c.String()] {
			continue
		}
		seen[c.String()] = true
		blob, _, err := blobFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, fmt.Errorf("%q %w: %v", p, ErrRefused, err)
		}
		c.Blob = blob
		out = append(out, c)
	}
	return out, nil
}

// Refresh returns cites with each file's blob now (a confirmation). A file
// that is gone, or left root, is the error: drop its cite instead.
func Refresh(root string, cites []index.Cite) ([]index.Cite, error) {
	out := make([]index.Cite, 0, len(cites))
	for _, c := range cites {
		rel, err := Resolve(root, root, c.Path)
		if err != nil {
			return nil, fmt.Errorf("%w; remove that cite from the fact (memoryd edit) to confirm the rest", err)
		}
		blob, _, err := blobFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, fmt.Errorf("%q %w: %v", c.Path, ErrRefused, err)
		}
		out = append(out, index.Cite{Path: rel, Blob: blob, Symbol: c.Symbol})
	}
	return out, nil
}

// RootOf returns the root of m's project on this machine, or "" when it
// cannot be found: dir's root when dir is in m's project, else the root of
// the newest working directory m's sources record that is in it. A global
// fact has no project, so no root.
func RootOf(m *index.Memory, dir string) string {
	return rootOf(m, dir, where)
}

// where is the slug and root of dir, both "" when it is not a directory.
func where(dir string) (slug, root string) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", ""
	}
	return project.Slug(dir), project.Root(dir)
}

// rootOf is RootOf with where, the slug and root of a directory.
func rootOf(m *index.Memory, dir string, where func(string) (slug, root string)) string {
	slug := m.Scope()
	if slug == "" {
		return ""
	}
	if dir != "" {
		if s, root := where(dir); s == slug {
			return root
		}
	}
	for i := len(m.Sources) - 1; i >= 0; i-- {
		cwd := m.Sources[i].Cwd
		if cwd == "" || !filepath.IsAbs(cwd) {
			continue
		}
		if s, root := where(cwd); s == slug && root != "" {
			return root
		}
	}
	return ""
}
