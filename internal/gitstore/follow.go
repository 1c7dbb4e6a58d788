package gitstore

import (
	"context"
	"fmt"
	"github.com/memoryd/memoryd/internal/commitmsg"
	"strings"
	"time"
)

// FileLog returns the commits that changed the memory file rel, newest
// first, following it back across renames; Files holds the file's path in
// each commit. At most n commits (n <= 0: all).
//
// A rename is a commit that deleted a file and added rel with much the same
// text (git's rename detection); `git log --follow` is not used, because it
// also takes any file that looks like a copy for rel's origin: a small fact
// deleted and restored would show another fact's history.
func (r *Repo) FileLog(ctx context.Context, rel string, n int) ([]Commit, error) {
	if r.gitErr != nil {
		return nil, r.gitErr
	}
	var list []Commit
	rev := "HEAD"
	for hops := 0; hops < maxRenames && rev != ""; hops++ {
		part, added, err := r.pathLog(ctx, rev, rel, n-len(list))
		if err != nil {
			return nil, err
		}
		list = append(list, part...)
		if added == "" || n > 0 && len(list) >= n {
			break
		}
		if rel, err = r.renamedFrom(ctx, added, rel); err != nil || rel == "" {
			return list, err
		}
		rev = added + "^"
	}
	return list, nil
}

// inFolder reports whether p, relative to the top of the work tree, is
// inside the memory folder.
func (r *Repo) inFolder(p string) bool { return r.rel == "" || strings.HasPrefix(p, r.rel+"/") }

// maxRenames bounds how many renames FileLog follows.
const maxRenames = 100

// pathLog is the commits up to rev that changed the memory file rel,
// newest first (at most n; n <= 0: all), and the commit that added it, ""
// when rev's history does not show it being added.
func (r *Repo) pathLog(ctx context.Context, rev, rel string, n int) (list []Commit, added string, err error) {
	specs, err := r.pathspecs([]string{rel})
	if err != nil {
		return nil, "", err
	}
	args := []string{literal, "log", "--no-renames", "--name-status", "-z", "--format=%x1e%H%x1f%aI%x1f%s%x1f" + commitmsg.TrailerFormat}
	if n > 0 {
		args = append(args, fmt.Sprintf("-n%d", n))
	}
	out, err := r.run(ctx, nil, append(args, rev, "--", specs[0])...)
	if err != nil {
		return nil, "", fmt.Errorf("log %s: %w", rel, err)
	}
	for _, rec := range strings.Split(string(out), "\x1e") {
		head, status, _ := strings.Cut(rec, "\x00")
		f := strings.Split(strings.TrimSpace(head), "\x1f")
		if len(f) != 5 {
			continue
		}
		c := Commit{Hash: f[0], Subject: f[2], Files: []string{rel}, Message: commitmsg.FromParts(f[2], f[3], f[4])}
		c.When, _ = time.Parse(time.RFC3339, f[1])
		list = append(list, c)
		added = ""
		if strings.HasPrefix(strings.TrimLeft(status, "\n"), "A") {
			added = c.Hash
		}
	}
	return list, added, nil
}

// renamedFrom returns the memory file that commit renamed to rel, "" when
// it added rel afresh.
func (r *Repo) renamedFrom(ctx context.Context, commit, rel string) (string, error) {
	out, err := r.run(ctx, nil, "diff-tree", "-r", "-M", "--name-status", "-z", "--root", "--no-commit-id", commit)
	if err != nil {
		return "", fmt.Errorf("renames in %s: %w", Short(commit), err)
	}
	// "STATUS\0path\0", or for a rename "Rscore\0old\0new\0".
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		if !strings.HasPrefix(f[i], "R") || i+2 >= len(f) {
			continue
		}
		old, renamed := f[i+1], f[i+2]
		if r.unspec(renamed) == rel && r.inFolder(old) {
			return r.unspec(old), nil
		}
		i++
	}
	return "", nil
}

// Show returns the memory file rel as commit has it.
func (r *Repo) Show(ctx context.Context, commit, rel string) ([]byte, error) {
	if r.gitErr != nil {
		return nil, r.gitErr
	}
	if commit == "" || strings.HasPrefix(commit, "-") {
		return nil, fmt.Errorf("show: bad commit %q", commit)
	}
	specs, err := r.pathspecs([]string{rel})
	if err != nil {
		return nil, err
	}
	return r.run(ctx, nil, "show", commit+":"+specs[0])
}
