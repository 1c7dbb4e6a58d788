package gitstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// This file reads the working tree's side of Changes: the folder's files
// and their blob hashes, cached by size and modification time.

// workFiles lists the tracked regular files and symlinks on disk. It does
// not descend into .git or into nested repositories, which git does not
// track as files either.
func (r *Repo) workFiles(tracked func(string) bool) (map[string]workEntry, error) {
	files := make(map[string]workEntry)
	err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != r.dir && errors.Is(err, fs.ErrNotExist) {
				return nil // vanished while walking
			}
			return err
		}
		if d.IsDir() {
			if p != r.dir && (d.Name() == ".git" || exists(filepath.Join(p, ".git"))) {
				return filepath.SkipDir
			}
			return nil
		}
		typ := d.Type()
		if !typ.IsRegular() && typ&fs.ModeSymlink == 0 {
			return nil
		}
		rel, err := filepath.Rel(r.dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !considered(tracked, rel) {
			return nil
		}
		files[rel] = workEntry{link: typ&fs.ModeSymlink != 0, bad: hasControl(rel)}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", r.dir, err)
	}
	return files, nil
}

// compare returns 0 when the file on disk equals its HEAD blob, 'M' when it
// differs and 'D' when it vanished meanwhile.
func (r *Repo) compare(rel string, we workEntry, he headEntry) (byte, error) {
	if we.link != he.link {
		return 'M', nil
	}
	var h plumbing.Hash
	var err error
	if we.link {
		var data []byte
		if data, err = r.readWork(rel, true); err == nil {
			h = plumbing.ComputeHash(plumbing.BlobObject, data)
		}
	} else {
		h, err = r.workHash(rel)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return 'D', nil
	}
	if err != nil {
		return 0, err
	}
	if h != he.hash {
		return 'M', nil
	}
	return 0, nil
}

// workHash is the blob hash of the file rel as git would store it. It
// streams the file (a 100 MB file is never held in memory) and remembers
// the hash by the file's size and modification time, so an unchanged file
// is not read again on the next commit.
func (r *Repo) workHash(rel string) (plumbing.Hash, error) {
	f, err := os.Open(filepath.Join(r.dir, filepath.FromSlash(rel)))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	key := hashKey{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	r.hashes.Lock()
	cached, ok := r.hashes.m[rel]
	r.hashes.Unlock()
	if ok && cached.key == key {
		return cached.hash, nil
	}
	hasher := plumbing.NewHasher(plumbing.BlobObject, fi.Size())
	if _, err := io.Copy(hasher, io.LimitReader(f, fi.Size())); err != nil {
		return plumbing.ZeroHash, err
	}
	h := hasher.Sum()
	r.hashes.Lock()
	if r.hashes.m == nil {
		r.hashes.m = map[string]hashEntry{}
	}
	r.hashes.m[rel] = hashEntry{key, h}
	r.hashes.Unlock()
	return h, nil
}

type hashKey struct{ size, mtime int64 }

type hashEntry struct {
	key  hashKey
	hash plumbing.Hash
}

// readWork returns what git would store for the file: its bytes, or a
// symlink's target.
func (r *Repo) readWork(rel string, link bool) ([]byte, error) {
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	if link {
		target, err := os.Readlink(p)
		return []byte(filepath.ToSlash(target)), err
	}
	return os.ReadFile(p)
}
