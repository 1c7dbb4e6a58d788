package gitstore

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// FileLog returns the commits that changed the memory file rel, newest
// first, following it across renames (`git log --follow`); Files holds the
// file's path in each commit. At most n commits (n <= 0: all).
func (r *Repo) FileLog(ctx context.Context, rel string, n int) ([]Commit, error) {
	if r.gitErr != nil {
		return nil, r.gitErr
	}
	specs, err := r.pathspecs([]string{rel})
	if err != nil {
		return nil, err
	}
	args := []string{literal, "log", "--follow", "--name-only", "-z", "--format=%x1e%H%x1f%aI%x1f%s"}
	if n > 0 {
		args = append(args, fmt.Sprintf("-n%d", n))
	}
	out, err := r.run(ctx, nil, append(args, "--", specs[0])...)
	if err != nil {
		return nil, fmt.Errorf("log %s: %w", rel, err)
	}
	var list []Commit
	for _, rec := range strings.Split(string(out), "\x1e") {
		head, names, _ := strings.Cut(rec, "\x00")
		f := strings.Split(strings.TrimSpace(head), "\x1f")
		if len(f) != 3 {
			continue
		}
		c := Commit{Hash: f[0], Subject: f[2]}
		c.When, _ = time.Parse(time.RFC3339, f[1])
		for _, p := range strings.Split(strings.Trim(names, "\x00\n"), "\x00") {
			if p = strings.TrimSpace(p); p != "" {
				c.Files = append(c.Files, r.unspec(p))
			}
		}
		list = append(list, c)
	}
	return list, nil
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
