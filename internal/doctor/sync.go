package doctor

import (
	"errors"
	"fmt"
	"time"

	"github.com/memoryd/memoryd/internal/gitsync"
	"github.com/memoryd/memoryd/internal/shell"
)

// SyncState is what doctor knows of sync: the configuration, the branch's
// upstream, and what the daemon last published.
type SyncState struct {
	Enabled bool
	// Target is what a round would sync with ("origin/main"), "" for
	// nothing; TargetErr says why.
	Target    string
	TargetErr error
	// OfflineSince is when the daemon's rounds started failing to reach
	// the remote (zero when they do not fail, or no daemon published it),
	// and Problem the last round's failure.
	OfflineSince time.Time
	Problem      string
	Paused       string
	Now          time.Time
}

// authRefusedFor is how long the remote may refuse the credentials before doctor
// calls it a problem: a day, not a moment of a VPN dropping.
const authRefusedFor = 24 * time.Hour

// syncCheck says whether sync is on, with what, and whether it works.
func (d *doctor) syncCheck() {
	s := d.o.Sync
	if d.o.Repo == nil {
		return // git's checks said why
	}
	if !s.Enabled {
		if s.Target != "" {
			d.ok("sync", fmt.Sprintf("off, though the notes repository has an upstream (%s); to sync the memory through it: %s", s.Target, syncOnFix(d.o.ConfigPath)))
		} else {
			d.ok("sync", "off")
		}
		return
	}
	if s.Target == "" {
		why := "no remote to sync with"
		if s.TargetErr != nil {
			why = s.TargetErr.Error()
		}
		fix := "git remote add origin <url> && git push -u origin HEAD"
		if d.o.Repo != nil {
			fix = "git -C " + shell.Quote(d.o.Repo.Root()) + " remote add origin <url> && git -C " + shell.Quote(d.o.Repo.Root()) + " push -u origin HEAD"
		}
		if errors.Is(s.TargetErr, gitsync.ErrNoRemote) || s.TargetErr == nil {
			d.bad("sync", "sync.enabled is on but "+why, fix)
		} else {
			d.bad("sync", why, "")
		}
		return
	}
	switch {
	case s.Paused != "":
		d.bad("sync", "paused: "+s.Paused, "memoryd sync (after doing what it says)")
	case !s.OfflineSince.IsZero() && gitsync.AuthRefused(s.Problem) && s.Now.Sub(s.OfflineSince) >= authRefusedFor:
		d.bad("sync", fmt.Sprintf("%s has refused this machine's credentials since %s (%s); commits are kept here and not shared",
			s.Target, s.OfflineSince.Local().Format("2006-01-02 15:04"), s.Problem), authFix(d))
	case !s.OfflineSince.IsZero():
		d.ok("sync", fmt.Sprintf("with %s; offline since %s: %s", s.Target, s.OfflineSince.Local().Format("2006-01-02 15:04"), s.Problem))
	default:
		d.ok("sync", "with "+s.Target)
	}
}

// syncOnFix is how to turn sync on.
func syncOnFix(cfgPath string) string {
	where := "the config file"
	if cfgPath != "" {
		where = cfgPath
	}
	return "memoryd install --sync (or set sync.enabled: true in " + where + "), then memoryd restart"
}

// authFix says how to mend credentials the remote refuses: memoryd uses the
// user's own, so the fix is theirs, checked with a fetch by hand.
func authFix(d *doctor) string {
	fetch := "git fetch"
	if d.o.Repo != nil {
		fetch = "git -C " + shell.Quote(d.o.Repo.Root()) + " fetch"
	}
	return "run " + fetch + " in a terminal and mend what it says (ssh: ssh-add your key, or the remote's URL; https: your credential helper or token); memoryd uses the same credentials and retries by itself"
}
