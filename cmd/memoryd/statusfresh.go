package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/memoryd/memoryd/internal/daemon"
)

// syncRestart is status's sync line when the config file turns sync on
// but the running daemon started without it (install --sync before the
// restart).
const syncRestart = "on in the config file, but the running daemon started before: memoryd restart turns it on"

// freshen corrects, from the files, what the daemon's last status cannot
// know yet, so status never contradicts the command before it: review
// items already accepted or rejected (their _inbox/ file is gone) are
// dropped, and sync turned on in the config file since the daemon
// started is said as such.
func (r *statusReport) freshen(f *folder) {
	st := r.Daemon
	if st == nil {
		return
	}
	kept := []string{}
	for _, file := range st.Sync.Review {
		if _, err := os.Lstat(filepath.Join(f.dir, filepath.FromSlash(file))); err == nil {
			kept = append(kept, file)
		}
	}
	st.Sync.Review = kept
	if r.Running && !st.Sync.Enabled && f.cfg.Sync.Enabled {
		r.SyncPending = syncRestart
	}
}

// printSyncNext is the end of status's sync line: when the next round
// runs, and that memoryd sync runs one now.
func printSyncNext(w io.Writer, s daemon.SyncStatus, now time.Time) {
	switch {
	case s.Running:
		fmt.Fprint(w, "; a round runs now")
	case !s.NextAt.IsZero():
		fmt.Fprintf(w, "; next round %s (memoryd sync runs one now)", relTime(s.NextAt, now))
	}
}
