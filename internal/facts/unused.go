package facts

import (
	"os"
	"path/filepath"
	"time"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/usage"
)

// Unused are the files of the facts of snap (the memory folder dir) that
// no agent used, and that were not written, in the after before now:
// review.unused_after's proposal. Pinned and user facts, the inbox and
// superseded facts are never proposed. memoryd never deletes them: a
// person decides, with memoryd forget (or by pinning a fact).
func Unused(dir string, snap index.Snapshot, uses map[string]usage.Use, after time.Duration, now time.Time) []string {
	var out []string
	for _, m := range snap.Memories {
		if !m.Pinned && m.Type != "user" && !index.InInbox(m.File) && !m.Superseded() && !Touched(dir, m, uses).After(now.Add(-after)) {
			out = append(out, m.File)
		}
	}
	return out
}

// Touched is when an agent last used m, or when m was made if never since:
// its metadata.updated date, else its file's modification time.
func Touched(dir string, m *index.Memory, uses map[string]usage.Use) time.Time {
	return usage.Touched(uses[m.File], madeAt(dir, m))
}

// madeAt is when m was last written: metadata.updated (a day, read as its
// start in local time), else the file's modification time.
func madeAt(dir string, m *index.Memory) time.Time {
	if d, err := time.ParseInLocation(time.DateOnly, m.UpdatedDate(), time.Local); err == nil {
		return d
	}
	if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(m.File))); err == nil {
		return fi.ModTime()
	}
	return time.Time{}
}
