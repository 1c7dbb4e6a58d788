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

	var wg sync.WaitGroup
	var memHashes []string
	var memErr, userErr error
	var memRetries, userRetries int
	wg.Go(func() {
		for i := range n {
			h, retries, err := retry(deadline, func() (string, error) {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.md", i)), fmt.Appendf(nil, "memory %d\n", i), 0o644); err != nil {
					return "", err
				}
				return commitChanges(r)
			})
			memRetries += retries
			if err != nil {
				memErr = fmt.Errorf("memory commit %d: %w", i, err)
				return
			}
			memHashes = append(memHashes, h)
		}
	})
	wg.Go(func() {
		for i := range n {
			name := fmt.Sprintf("other/g%02d.txt", i)
			_, retries, err := retry(deadline, func() (string, error) {
				if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), fmt.Appendf(nil, "user %d\n", i), 0o644); err != nil {
					return "", err
				}
				if _, err := cliErr(root, "add", "--", name); err != nil {
					return "", cliBusy(err)
				}
				_, err := cliErr(root, "commit", "-q", "-m", fmt.Sprintf("user %d", i), "--", name)
				return "", cliBusy(err)
			})
			userRetries += retries
			if err != nil {
				userErr = fmt.Errorf("user commit %d: %w", i, err)
				return
			}
		}
	})
	wg.Wait()
	if memErr != nil || userErr != nil {
		t.Fatal(errors.Join(memErr, userErr))
	}
	t.Logf("lost lock races: memoryd %d, CLI %d", memRetries, userRetries)
	checkAllReachable(t, root, memHashes, n)
}

// retry calls f until it succeeds, fails with something else than ErrBusy,
// or the deadline passes, pausing a few random milliseconds in between.
func retry(deadline time.Time, f func() (string, error)) (hash string, retries int, err error) {
	for {
		hash, err = f()
		if err == nil || !errors.Is(err, ErrBusy) || time.Now().After(deadline) {
			return hash, retries, err
		}
		retries++
		time.Sleep(time.Duration(1+rand.IntN(10)) * time.Millisecond)
	}
}

// cliBusy marks a CLI failure caused by git's locks as ErrBusy.
func cliBusy(err error) error {
	if err != nil && busyMessage(err.Error()) != "" {
		return fmt.Errorf("%w: %w", ErrBusy, err)
	}
	return err
}

// checkAllReachable checks that memoryd's commits and the n user commits
// are all in HEAD's history, once each, and that nothing is left over.
func checkAllReachable(t *testing.T, root string, memHashes []string, n int) {
	t.Helper()
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
