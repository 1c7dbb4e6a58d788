package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrMergeTreeUnsupported means git is older than 2.38 and cannot merge
// without a work tree (git merge-tree --write-tree).
var ErrMergeTreeUnsupported = errors.New("git merge-tree --write-tree needs git 2.38 or later")

// Stage is one side of a path in a tree or a conflict: its mode and blob,
// both "" when the side does not have the path.
type Stage struct{ Mode, OID string }

// Merged is a merge computed without a work tree (MergeTree).
type Merged struct {
	// Tree is the merged tree; conflicted paths hold files with markers.
	Tree string
	// Conflicts holds the stages of each conflicted path (1 base, 2 ours,
	// 3 theirs), by path relative to the work tree's top.
	Conflicts map[string]map[int]Stage
	// Kinds is the kind of git's message about each path
	// ("CONFLICT (contents)", "Auto-merging").
	Kinds map[string]string
}

// MergeTree merges theirs into ours without touching the work tree, the
// index or any ref (git merge-tree --write-tree).
func (r *Repo) MergeTree(ctx context.Context, ours, theirs string) (Merged, error) {
	if r.gitErr != nil {
		return Merged{}, r.gitErr
	}
	out, err := r.run(ctx, nil, "merge-tree", "--write-tree", "-z", "--messages", ours, theirs)
	if err != nil {
		var ce *cliError
		if !errors.As(err, &ce) || ce.code != 1 {
			if strings.Contains(GitMessage(err), "usage") {
				return Merged{}, fmt.Errorf("%w: %w", ErrMergeTreeUnsupported, err)
			}
			return Merged{}, fmt.Errorf("merge-tree: %w", err)
		}
		out = []byte(ce.stdout) // exit 1: the merge has conflicts
	}
	return parseMergeTree(string(out))
}

// parseMergeTree reads `git merge-tree --write-tree -z --messages`.
func parseMergeTree(out string) (Merged, error) {
	fields := strings.Split(out, "\x00")
	if len(fields) == 0 || fields[0] == "" {
		return Merged{}, fmt.Errorf("merge-tree printed no tree: %q", out)
	}
	m := Merged{Tree: fields[0], Conflicts: map[string]map[int]Stage{}, Kinds: map[string]string{}}
	i := 1
	for ; i < len(fields) && fields[i] != ""; i++ {
		meta, p, ok := strings.Cut(fields[i], "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return Merged{}, fmt.Errorf("merge-tree: cannot read %q", fields[i])
		}
		n, _ := strconv.Atoi(f[2])
		if m.Conflicts[p] == nil {
			m.Conflicts[p] = map[int]Stage{}
		}
		m.Conflicts[p][n] = Stage{Mode: f[0], OID: f[1]}
	}
	for i++; i < len(fields); {
		n, err := strconv.Atoi(fields[i])
		if err != nil || i+n+2 >= len(fields) {
			break
		}
		kind := fields[i+1+n]
		for _, p := range fields[i+1 : i+1+n] {
			if strings.HasPrefix(kind, "CONFLICT") || m.Kinds[p] == "" {
				m.Kinds[p] = kind
			}
		}
		i += n + 3
	}
	return m, nil
}

// Blob is the content of the blob oid.
func (r *Repo) Blob(ctx context.Context, oid string) ([]byte, error) {
	if r.gitErr != nil {
		return nil, r.gitErr
	}
	return r.run(ctx, nil, "cat-file", "blob", oid)
}

// HasPath reports whether the tree (or commit) has the path, relative to
// the work tree's top.
func (r *Repo) HasPath(ctx context.Context, tree, path string) bool {
	_, err := r.out(ctx, "cat-file", "-e", tree+":"+path)
	return err == nil
}

// TreeFiles lists the files of the commit rev below the memory folder, by
// path relative to the memory folder.
func (r *Repo) TreeFiles(ctx context.Context, rev string) (map[string]Stage, error) {
	args := []string{"ls-tree", "-r", "-z", "--full-tree", rev}
	if r.rel != "" {
		args = append(args, "--", r.rel+"/")
	}
	out, err := r.out(ctx, args...)
	if err != nil {
		return nil, err
	}
	files := map[string]Stage{}
	for _, line := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		if r.rel != "" {
			p = strings.TrimPrefix(p, r.rel+"/")
		}
		files[p] = Stage{Mode: f[0], OID: f[2]}
	}
	return files, nil
}

// EditTree writes the tree that is tree with the paths of edits (relative
// to the work tree's top) set to their stage, or removed when the stage is
// empty. It works in an index of its own: the user's is never touched.
func (r *Repo) EditTree(ctx context.Context, tree string, edits map[string]Stage) (string, error) {
	if r.gitErr != nil {
		return "", r.gitErr
	}
	dir, err := os.MkdirTemp("", "memoryd-tree-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(dir, "index")}
	if _, err := r.runEnv(ctx, nil, env, "read-tree", tree); err != nil {
		return "", err
	}
	var lines strings.Builder
	for p, x := range edits {
		if x.OID == "" {
			lines.WriteString("0 0000000000000000000000000000000000000000\t" + p + "\x00")
		} else {
			lines.WriteString(x.Mode + " " + x.OID + "\t" + p + "\x00")
		}
	}
	if _, err := r.runEnv(ctx, []byte(lines.String()), env, "update-index", "-z", "--index-info"); err != nil {
		return "", err
	}
	out, err := r.runEnv(ctx, nil, env, "write-tree")
	return strings.TrimSpace(string(out)), err
}

// WriteBlob stores data as a blob and returns its id.
func (r *Repo) WriteBlob(ctx context.Context, data []byte) (string, error) {
	if r.gitErr != nil {
		return "", r.gitErr
	}
	out, err := r.run(ctx, data, "hash-object", "-w", "--stdin")
	return strings.TrimSpace(string(out)), err
}
