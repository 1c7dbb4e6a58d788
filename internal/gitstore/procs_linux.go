//go:build linux

package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// procDir is where the processes are listed; a variable for tests.
var procDir = "/proc"

// gitProcesses returns the git processes, other than this process's own
// children and their descendants, that work on the repository: a process
// named git or git-* (see isGitName) whose working directory is inside the
// work tree or the git directory, or whose GIT_DIR names the git directory,
// whose command is not a lingering reader (see lingering), and that is not
// a fetch or push of memoryd's or a helper a dead memoryd left behind (see
// ignoredMark). known is
// true: on Linux /proc answers, as far as it shows this user's processes —
// another user's git (under sudo, say), one in another PID namespace or on
// another machine sharing the file system is not seen.
//
// The cost is one small read of /proc/<pid>/comm per process, and a few
// more reads for the git processes only: 1.5 ms for 300 processes on a
// 2-core virtual machine (BenchmarkGitProcesses), against ~3 ms for the
// rest of Busy on a 20,000-file index.
func (r *Repo) gitProcesses() (procs []gitProc, known bool) {
	d, err := os.Open(procDir)
	if err != nil {
		return nil, false
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, false
	}
	var gits []int
	buf := make([]byte, 128)
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		// comm, not stat: the kernel makes it without looking at the
		// process's memory, several times faster.
		if pid, err := strconv.Atoi(name); err == nil && isGitName(readComm(name, buf)) {
			gits = append(gits, pid)
		}
	}
	if len(gits) == 0 {
		return nil, true
	}
	own := ownChildren() // after the scan: see startChild
	self := os.Getpid()
	for _, pid := range gits {
		if _, state, _, ok := readStat(pid, buf); !ok || state == 'Z' || state == 'X' {
			continue // gone, or exited and not yet waited for
		}
		if descends(pid, own, self, buf) || !r.worksHere(pid) || marked(pid) {
			continue
		}
		args := cmdline(pid)
		if len(args) == 0 {
			continue // exited since its state was read: a live process has a command line
		}
		if lingering[gitSubcommand(args)] {
			continue
		}
		procs = append(procs, gitProc{pid: pid, args: args})
	}
	return procs, true
}

// marked reports whether the git process pid is one of memoryd's that
// never blocks a commit (see ignoredMark).
func marked(pid int) bool {
	env, err := os.ReadFile(procDir + "/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return ignoredMark(env, func(p int) bool {
		_, state, _, ok := readStat(p, make([]byte, 512))
		return ok && state != 'Z' && state != 'X'
	})
}

// readComm returns the name of the process /proc/<name>, or "". It calls
// open, read and close itself: an *os.File costs a few more system calls
// each (poller registration, finalizer), which made the scan twice as slow.
func readComm(name string, buf []byte) string {
	return string(bytes.TrimSuffix(readSmall(procDir+"/"+name+"/comm", buf), []byte("\n")))
}

// readSmall reads up to len(buf) bytes of a file into buf, or nothing.
func readSmall(path string, buf []byte) []byte {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	if err != nil || n < 0 {
		return nil
	}
	return buf[:n]
}

// descends reports whether pid is one of own or a descendant of one
// (a `git commit`'s `git maintenance run --auto`, say). The walk stops at
// this process itself: the test's or the user's other children are not
// memoryd's git.
func descends(pid int, own map[int]bool, self int, buf []byte) bool {
	for range 64 { // bounded: pids are reused
		if own[pid] {
			return true
		}
		_, _, p, ok := readStat(pid, buf)
		if !ok || p <= 1 || p == self || p == pid {
			return false
		}
		pid = p
	}
	return false
}

// readStat reads a process's name (comm), state and parent pid from
// /proc/<pid>/stat: "pid (comm) S ppid ...". comm may hold spaces and
// parentheses, so the fields are read after the last ')'.
func readStat(pid int, buf []byte) (comm string, state byte, ppid int, ok bool) {
	b := readSmall(procDir+"/"+strconv.Itoa(pid)+"/stat", buf)
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open || end+2 >= len(b) {
		return "", 0, 0, false
	}
	fields := strings.Fields(string(b[end+1:]))
	if len(fields) < 2 {
		return "", 0, 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return "", 0, 0, false
	}
	return string(b[open+1 : end]), fields[0][0], ppid, true
}

// cmdline returns a process's arguments, or nil.
func cmdline(pid int) []string {
	b, err := os.ReadFile(procDir + "/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// worksHere reports whether the process's working directory is inside the
// work tree or the git directory, or its GIT_DIR names the git directory.
// Processes this user may not inspect do not count.
func (r *Repo) worksHere(pid int) bool {
	base := procDir + "/" + strconv.Itoa(pid)
	cwd, err := os.Readlink(base + "/cwd")
	if err != nil {
		return false
	}
	if r.inRepo(cwd) {
		return true
	}
	env, err := os.ReadFile(base + "/environ")
	if err != nil {
		return false
	}
	for kv := range strings.SplitSeq(string(env), "\x00") {
		if dir, ok := strings.CutPrefix(kv, "GIT_DIR="); ok && dir != "" {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(cwd, dir)
			}
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			return r.inRepo(dir)
		}
	}
	return false
}

// inRepo reports whether dir (absolute, symlinks resolved) is the work
// tree, the git directory or the common git directory, or below one.
func (r *Repo) inRepo(dir string) bool {
	for _, top := range []string{r.root, r.gitDir, r.commonDir} {
		if top != "" && (dir == top || strings.HasPrefix(dir, top+string(filepath.Separator))) {
			return true
		}
	}
	return false
}

// lockHeld reports whether any process this user can inspect has the file
// at path open (a tool that takes git's lock files itself keeps the lock
// open while it writes). known is true: this is Linux. It lists every open
// file of every process, a few milliseconds, and is asked only about a lock
// old enough to be stale.
func lockHeld(path string) (held, known bool) {
	d, err := os.Open(procDir)
	if err != nil {
		return false, false
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return false, false
	}
	for _, name := range names {
		if _, err := strconv.Atoi(name); err != nil {
			continue
		}
		fdDir := procDir + "/" + name + "/fd"
		f, err := os.Open(fdDir)
		if err != nil {
			continue // another user's process, or gone
		}
		fds, _ := f.Readdirnames(-1)
		f.Close()
		for _, fd := range fds {
			if target, err := os.Readlink(fdDir + "/" + fd); err == nil && target == path {
				return true, true
			}
		}
	}
	return false, true
}
