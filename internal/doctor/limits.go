package doctor

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/watcher"
)

// openFiles compares, on macOS, the files the daemon's watchers hold open
// with the open-file limit it runs with. fsnotify watches with kqueue there,
// which keeps one file open for every watched folder and every entry in it:
// the memory folder's tree and the transcript folders (each watched flat).
// On Linux inotify needs no open files (watchLimit checks its watches).
func (d *doctor) openFiles() {
	goos := d.o.Install.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	if goos != "darwin" {
		return
	}
	mem := watcher.KqueueFiles(d.o.Dir, false)
	transcripts := 0
	if d.o.Config.Extract.Enabled && d.o.Sources != nil {
		for _, p := range d.o.Sources.WatchPaths() {
			transcripts += watcher.KqueueFiles(p, true)
		}
	}
	limit, service := d.openFileLimit()
	if limit == 0 {
		return // nothing known to compare with
	}
	problem, fix := openFilesProblem(mem, transcripts, limit, service)
	if problem != "" {
		d.bad("open files", problem, fix)
		return
	}
	d.ok("open files", fmt.Sprintf("%d watched, limit %d", mem+transcripts, limit))
}

// openFileLimit is the limit the daemon runs with: what the launchd plist
// sets when the agent is installed (service is then true), else what a
// memoryd started from this shell gets, which is this process's (the Go
// runtime raises both the same way).
func (d *doctor) openFileLimit() (limit uint64, service bool) {
	if d.o.InstallErr == nil {
		if file, err := install.ServiceFile(d.o.Install); err == nil {
			if _, err := os.Stat(file); err == nil {
				return install.LaunchdOpenFiles, true
			}
		}
	}
	soft, _, err := watcher.OpenFileLimit()
	if err != nil {
		return 0, false
	}
	return soft, false
}

// openFilesProblem says whether mem+transcripts open files come near limit:
// past three quarters of it, since git, the transcript databases and the
// sockets need files too, and a store grows. It is "" when they do not.
func openFilesProblem(mem, transcripts int, limit uint64, service bool) (problem, fix string) {
	need := uint64(mem + transcripts)
	if need*4 <= limit*3 {
		return "", ""
	}
	where := "memoryd started from this shell may open"
	if service {
		where = "the launchd agent may open (its NumberOfFiles)"
	}
	problem = fmt.Sprintf("the file watchers hold %d files open (memory folder %d, transcript folders %d) and %s at most %d",
		need, mem, transcripts, where, limit)
	var fixes []string
	if mem >= transcripts {
		fixes = append(fixes, "memoryd compact (fewer fact files)")
	} else {
		fixes = append(fixes, "move old sessions out of the transcript folders, or set extract.enabled: false")
	}
	if service {
		fixes = append(fixes, fmt.Sprintf("the agent's limit is %d; a larger store needs fewer files", limit))
	} else {
		fixes = append(fixes, fmt.Sprintf("run memoryd as a service (memoryd install: %d files), or raise the limit before starting it (ulimit -n %d)",
			install.LaunchdOpenFiles, install.LaunchdOpenFiles))
	}
	return problem, strings.Join(fixes, "; ")
}
