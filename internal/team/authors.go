package team

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/gitstore"
)

// authorsFile caches Authors in the team's state folder, for the commit
// HEAD was at: a session start reads it instead of running git.
const authorsFile = "authors.json"

type authorsCache struct {
	Head    string                         `json:"head"`
	Authors map[string]gitstore.Authorship `json:"authors"`
}

// CachedAuthors is Authors, kept in cacheDir for the commit HEAD is at:
// while HEAD does not move, no git process runs. HEAD is read from the
// repository's files; where it cannot be (a linked worktree, a reftable)
// git is asked every time.
func (f Folder) CachedAuthors(ctx context.Context, cacheDir string) (map[string]gitstore.Authorship, error) {
	head := headCommit(f.Root)
	var c authorsCache
	if head != "" {
		if data, err := os.ReadFile(filepath.Join(cacheDir, authorsFile)); err == nil &&
			json.Unmarshal(data, &c) == nil && c.Head == head && c.Authors != nil {
			return c.Authors, nil
		}
	}
	a, err := f.Authors(ctx)
	if err != nil || head == "" {
		return a, err
	}
	if data, err := json.Marshal(authorsCache{Head: head, Authors: a}); err == nil && os.MkdirAll(cacheDir, 0o700) == nil {
		atomicfile.Write(cacheDir, authorsFile, data, 0o600) // a cache: failing to keep it costs a git process next time
	}
	return a, nil
}

// headCommit is the commit HEAD of the repository at root names, read
// from its files, "" when that cannot be told that way.
func headCommit(root string) string {
	gitDir := filepath.Join(root, ".git")
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(data))
	ref, symbolic := strings.CutPrefix(head, "ref: ")
	if !symbolic {
		return head
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return ""
	}
	if data, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(data))
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(packed))
	for sc.Scan() {
		if hash, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref {
			return hash
		}
	}
	return ""
}

// Byline is how a team fact's author reads beside it: "team, added by Ann
// in 1a2b3c4", "team, added by Ann in 1a2b3c4, last changed by Bo in
// 5d6e7f8", or "team, not committed yet".
func Byline(a gitstore.Authorship, known bool) string {
	if !known {
		return "team, not committed yet"
	}
	s := "team, added by " + a.First.Author + " in " + short(a.First.Hash)
	if a.Last.Hash != a.First.Hash {
		s += ", last changed by " + a.Last.Author + " in " + short(a.Last.Hash)
	}
	return s
}

func short(h string) string { return h[:min(len(h), 7)] }
