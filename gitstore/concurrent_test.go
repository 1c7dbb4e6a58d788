package gitstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// memoryd commits memory files in a loop while the CLI commits other files
// of the same repository: every commit of both must end up reachable, the
// work tree clean and git fsck happy. Both sides retry when git's locks
// make them lose a race, which is what the daemon does with ErrBusy.
func TestConcurrentCommits(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "seed.md"), "seed\n")
	write(t, filepath.Join(root, "other", "seed.txt"), "seed\n")
	commitAll(t, root, "seed")
	r := open(t, dir)
	const n = 30
	deadline := time.Now().Add(60 * time.Second)
	pause := func() { time.Sleep(time.Duration(1+rand.IntN(10)) * time.Millisecond) }

	var wg sync.WaitGroup
	var memHashes []string
	var memErr, userErr error
	var memRetries, userRetries int
	wg.Go(func() {
		for i := range n {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.md", i)), fmt.Appendf(nil, "memory %d\n", i), 0o644); err != nil {
				memErr = err
				return
			}
			for {
				h, err := commitChanges(r)
				if err == nil {
					memHashes = append(memHashes, h)
					break
				}
				if !errors.Is(err, ErrBusy) || time.Now().After(deadline) {
					memErr = fmt.Errorf("memory commit %d: %w", i, err)
					return
				}
				memRetries++
				pause()
			}
		}
	})
	wg.Go(func() {
		for i := range n {
			name := fmt.Sprintf("other/g%02d.txt", i)
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), fmt.Appendf(nil, "user %d\n", i), 0o644); err != nil {
				userErr = err
				return
			}
			for {
				_, err := cliErr(root, "add", "--", name)
				if err == nil {
					_, err = cliErr(root, "commit", "-q", "-m", fmt.Sprintf("user %d", i), "--", name)
				}
				if err == nil {
					break
				}
				if busyMessage(err.Error()) == "" || time.Now().After(deadline) {
					userErr = fmt.Errorf("user commit %d: %w", i, err)
					return
				}
				userRetries++
				pause()
			}
		}
	})
	wg.Wait()
	if memErr != nil || userErr != nil {
		t.Fatal(errors.Join(memErr, userErr))
	}
	t.Logf("lost lock races: memoryd %d, CLI %d", memRetries, userRetries)

	reachable := make(map[string]bool)
	for _, h := range strings.Fields(cli(t, root, "rev-list", "HEAD")) {
		reachable[h] = true
	}
	for _, h := range memHashes {
		if !reachable[h] {
			t.Errorf("memory commit %s is not reachable from HEAD", h)
		}
	}
	subjects := cli(t, root, "log", "--format=%s")
	for i := range n {
		if c := strings.Count(subjects+"\n", fmt.Sprintf("user %d\n", i)); c != 1 {
			t.Errorf("user commit %d appears %d times", i, c)
		}
	}
	if len(memHashes) != n || len(reachable) != 2*n+1 {
		t.Errorf("%d memory commits, %d commits in all; want %d and %d", len(memHashes), len(reachable), n, 2*n+1)
	}
	if st := cli(t, root, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
}

// commitChanges is the daemon's flush: whatever Changes reports, committed.
func commitChanges(r *Repo) (string, error) {
	cs, err := r.Changes(tracked)
	if err != nil {
		return "", err
	}
	paths := make([]string, len(cs))
	for i, c := range cs {
		paths[i] = c.Path
	}
	return r.Commit(context.Background(), CommitMessage(paths), paths)
}
