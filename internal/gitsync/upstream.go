package gitsync

import (
	"context"
	"strings"

	"github.com/memoryd/memoryd/internal/gitstore"
)

// Target is what a round would sync the checked-out branch with
// ("origin/main"): remote, else the branch's upstream remote, as Round
// resolves it. It runs no network command. The error wraps ErrNoRemote
// when there is nothing to sync with.
func Target(ctx context.Context, repo *gitstore.Repo, remote string) (string, error) {
	branch, err := repo.CurrentBranch(ctx)
	if err != nil {
		return "", err
	}
	s := &Syncer{opts: Options{Remote: remote}}
	r, b, err := s.target(ctx, repo, branch)
	if err != nil {
		return "", err
	}
	return r + "/" + b, nil
}

// authMarks are what git says when the remote refused this machine's
// credentials (or there were none to give), in lower case.
var authMarks = []string{
	"permission denied",
	"authentication failed",
	"could not read username",
	"could not read password",
	"terminal prompts disabled",
	"host key verification failed",
	"access denied",
	"invalid username or password",
	"returned error: 401",
	"returned error: 403",
}

// AuthRefused reports whether a round's failure (its error text) is the
// remote refusing the credentials rather than being out of reach: a
// problem that does not go away by itself, unlike a network that is down.
func AuthRefused(problem string) bool {
	p := strings.ToLower(problem)
	for _, m := range authMarks {
		if strings.Contains(p, m) {
			return true
		}
	}
	return false
}
