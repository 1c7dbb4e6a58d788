package gitstore

import (
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"sync"
)

// markVar is set in the environment of every git memoryd starts, to the
// pid of the memoryd that started it; git passes it on to the helpers it
// starts. A git process carrying the pid of a memoryd that is gone is a
// helper left behind (a `git remote-http` blocked on a silent remote when
// memoryd was killed): it takes no lock memoryd needs, and it must never
// count as "another git command" (see gitProcesses).
const markVar = "MEMORYD_GIT"

// netVar is set, besides markVar, for memoryd's own fetch and push: they
// touch neither the index nor HEAD nor the checked-out branch, so a commit
// (of this memoryd or of another one, `memoryd add` beside the daemon's
// sync) goes ahead while they run.
const netVar = "MEMORYD_GIT_NET=1"

// ownMark is markVar for this process.
var ownMark = markVar + "=" + strconv.Itoa(os.Getpid())

// children holds the pids of the git processes this process started
// through run and has not yet waited for, so that the scan for other git
// processes (gitProcesses) does not count memoryd's own. It is process-wide
// rather than per Repo: a git started for one Repo value is no stranger to
// another Repo value of the same repository.
var children = struct {
	sync.Mutex
	pids map[int]bool
}{pids: make(map[int]bool)}

// startChild starts cmd and records its pid until forgetChild. The lock is
// held across Start, and ownChildren takes it after reading /proc, so a
// scan that sees the new process also finds its pid recorded.
func startChild(cmd *exec.Cmd) error {
	children.Lock()
	defer children.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	children.pids[cmd.Process.Pid] = true
	return nil
}

// forgetChild drops pid once its process has been waited for (before that
// the pid cannot be reused).
func forgetChild(pid int) {
	children.Lock()
	delete(children.pids, pid)
	children.Unlock()
}

// ownChildren returns a copy of the recorded pids.
func ownChildren() map[int]bool {
	children.Lock()
	defer children.Unlock()
	own := make(map[int]bool, len(children.pids))
	for pid := range children.pids {
		own[pid] = true
	}
	return own
}

// ignoredMark reports whether a git process whose environment is env
// (NUL-separated) is one of memoryd's that never blocks a commit: a fetch
// or push of memoryd's (netVar), or any git of a memoryd that is no longer
// running (alive answers for a pid).
func ignoredMark(env []byte, alive func(pid int) bool) bool {
	pid, net := 0, false
	for kv := range strings.SplitSeq(string(env), "\x00") {
		if v, ok := strings.CutPrefix(kv, markVar+"="); ok {
			pid, _ = strconv.Atoi(v)
		}
		net = net || kv == netVar
	}
	if pid <= 0 {
		return false
	}
	return net || !alive(pid)
}

// gitProc is another git process working on the repository.
type gitProc struct {
	pid  int
	args []string // its command line
}

// command returns the process's command line for messages, shortened.
func (p gitProc) command() string {
	const max = 80
	s := strings.Join(p.args, " ")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// isGitName reports whether a process name (its comm, or the base name of
// argv[0]) is git's: "git", or a dashed "git-upload-pack" and the like.
func isGitName(name string) bool {
	return name == "git" || strings.HasPrefix(name, "git-")
}

// lingering lists git commands that never take the index lock or move a
// ref, and that may stay running for as long as a pager, an editor or a
// file-system monitor keeps them: `git log` waiting on less, an editor's
// `git cat-file --batch`, the built-in fsmonitor daemon. Counting them would
// hold memoryd's commits back for hours, so they do not make the repository
// busy. Nor do the read-only commands memoryd itself runs without the write
// lock — a memoryd starting (version, rev-parse, config), a job checking
// which files git ignores or who wrote a line while its model thinks
// (check-ignore, diff-tree): one memoryd's reads must not fail another's
// commit. Everything else counts, `git status` included (it refreshes the
// index).
var lingering = map[string]bool{
	"log": true, "show": true, "diff": true, "blame": true, "annotate": true, "grep": true,
	"shortlog": true, "whatchanged": true, "cat-file": true, "help": true,
	"fsmonitor--daemon": true, "credential-cache--daemon": true,
	"version": true, "rev-parse": true, "config": true, "check-ignore": true, "diff-tree": true,
}

// gitSubcommand returns the git command of a git command line: "fetch" for
// ["git", "-C", "x", "fetch", "origin"], "upload-pack" for
// ["git-upload-pack", "."], or "" when there is none.
func gitSubcommand(args []string) string {
	if len(args) == 0 {
		return ""
	}
	if base := path.Base(args[0]); strings.HasPrefix(base, "git-") {
		return strings.TrimPrefix(base, "git-")
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "-C" || a == "--git-dir" || a == "--work-tree" ||
			a == "--namespace" || a == "--config-env" || a == "--super-prefix":
			i++ // the option's value follows
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}
