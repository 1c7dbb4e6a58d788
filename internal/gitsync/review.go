package gitsync

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/state"
)

// ReviewOrigin is where the two versions of a fact changed on both
// machines came from: Host is this machine (whose version waits in the
// inbox), Remote the remote and its host ("origin, git.example.com"; a
// path for a remote on this machine's disk). Sync records one per inbox
// file it makes (state.SyncReviewFile, per machine); review shows it.
type ReviewOrigin struct {
	Host   string `json:"host"`
	Remote string `json:"remote"`
}

// Line is the origin as review shows it.
func (o ReviewOrigin) Line() string {
	return fmt.Sprintf("changed on both machines: this machine's version (%s) vs the remote's (%s)", o.Host, o.Remote)
}

// ReviewOrigins reads the records sync made on this machine, by inbox file
// (relative to the memory folder); none when there are none.
func ReviewOrigins(stateDir string) map[string]ReviewOrigin {
	m := map[string]ReviewOrigin{}
	if stateDir != "" {
		state.ReadJSON(stateDir, state.SyncReviewFile, &m)
	}
	return m
}

// recordReview records the origin of the round's inbox files; a failure
// is logged: the files are in the inbox all the same.
func (s *Syncer) recordReview(ctx context.Context, repo *gitstore.Repo, res *Result) {
	if s.opts.StateDir == "" || len(res.Review) == 0 {
		return
	}
	host, _ := os.Hostname()
	u := repo.Config(ctx, "remote."+res.Remote+".url")
	o := ReviewOrigin{Host: host, Remote: res.Remote + ", " + urlHost(u)}
	m := ReviewOrigins(s.opts.StateDir)
	for _, f := range res.Review {
		m[f] = o
	}
	if err := state.WriteJSON(s.opts.StateDir, state.SyncReviewFile, m); err != nil {
		s.log.Warn("record where the facts for review came from", "err", err)
	}
}

// urlHost is the host of a remote's URL (https://host/…, ssh://host/…,
// user@host:path), or the path of a remote on this machine's disk.
func urlHost(raw string) string {
	if u, err := url.Parse(raw); err == nil && strings.Contains(raw, "://") {
		if u.Host != "" {
			return u.Hostname()
		}
		return u.Path // file:///srv/notes.git
	}
	if at, rest, ok := strings.Cut(raw, "@"); ok && !strings.Contains(at, "/") {
		raw = rest
	}
	if host, _, ok := strings.Cut(raw, ":"); ok && !strings.Contains(host, "/") && host != "" {
		return host
	}
	return raw
}
