package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// minGit is the oldest git whose CLI behaves as this package expects
// (core.abbrev=no, --pathspec-from-file for add and commit, git restore).
var minGit = [2]int{2, 31}

// cliEnvDrop lists inherited variables that would point git at another
// repository, index or work tree than the one Open discovered (they are set,
// for example, when memoryd is started from a git hook).
var cliEnvDrop = []string{
	"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_COMMON_DIR=",
	"GIT_PREFIX=", "GIT_NAMESPACE=", "GIT_OBJECT_DIRECTORY=",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES=",
}

// cliEnvSet makes git non-interactive and its messages parseable.
var cliEnvSet = []string{
	"GIT_TERMINAL_PROMPT=0", // never ask for credentials
	"GIT_EDITOR=:",          // never open an editor
	"GIT_PAGER=cat", "PAGER=cat",
	"LC_ALL=C", "LANGUAGE=C", // English messages: we match a few of them
}

// cliError is a failed git command.
type cliError struct {
	args   []string
	code   int
	stdout string
	stderr string
	err    error
}

func (e *cliError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = strings.TrimSpace(e.stdout)
	}
	if msg == "" {
		msg = e.err.Error()
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // the first line names the problem; hints follow
	}
	return fmt.Sprintf("git %s: %s", subcommand(e.args), msg)
}

// subcommand picks the git subcommand out of args, for messages.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-c":
			i++
		case !strings.HasPrefix(args[i], "-"):
			return args[i]
		}
	}
	return strings.Join(args, " ")
}

func (e *cliError) Unwrap() error { return e.err }

// literal makes add, commit and restore read pathspecs as plain names, so a
// file named ":x.md" or "*.md" means just that file.
const literal = "--literal-pathspecs"

// cancelGrace is how long git gets to remove its lock files after ctx ends
// before it is killed.
const cancelGrace = 5 * time.Second

// noHooks points git at a hooks directory that cannot exist, so that none
// of the user's hooks runs for memoryd's git commands: not pre-commit and
// commit-msg (also skipped by --no-verify), and not prepare-commit-msg,
// post-commit, reference-transaction or post-index-change, which
// --no-verify does not skip. memoryd commits unattended: nobody could answer
// a hook's question, a failing hook would stall every later commit, and a
// slow one (a post-commit push, say) would hold every commit up to its
// timeout although the commit itself had landed. git looks each hook up as
// <core.hooksPath>/<name>, which below /dev/null is never a file (checked
// with git 2.39 for every hook a commit runs); a -c on the command line wins
// over every configuration file.
var noHooks = []string{"-c", "core.hooksPath=" + os.DevNull}

// run executes git in the work tree top with stdin and returns its standard
// output. A non-zero exit becomes a *cliError; one caused by git's locks or
// by the repository's state is additionally wrapped with ErrBusy. The
// user's hooks never run (see noHooks), and the process is one of this
// process's own children (see startChild) until it has been waited for.
//
// When ctx ends, git is interrupted, not killed: on SIGINT it removes its
// lock files, whereas a killed `git commit` leaves index.lock behind and
// blocks the user's next git command until they delete it by hand. git
// runs in a process group of its own (see inGroup) and the interrupt goes
// to the whole group, its helpers included (git remote-http, ssh, a
// credential helper); what is left of the group after git ended is killed.
// Every git carries ownMark in its environment, so that a helper a dead
// memoryd left behind is known for what it is (see gitProcesses).
func (r *Repo) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.runEnv(ctx, stdin, nil, args...)
}

// runEnv is run with extra environment variables (NAME=value), set after
// memoryd's own.
func (r *Repo) runEnv(ctx context.Context, stdin []byte, extra []string, args ...string) ([]byte, error) {
	full := make([]string, 0, len(args)+len(noHooks)+1)
	full = append(full, "--no-pager")
	full = append(full, noHooks...)
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, r.gitBin, full...)
	inGroup(cmd)
	cmd.Cancel = func() error { return interruptGroup(cmd) }
	cmd.WaitDelay = cancelGrace
	cmd.Dir = r.root
	cmd.Env = append(append(cliEnv(cmd.Environ()), ownMark), extra...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := startChild(cmd)
	if err == nil {
		err = cmd.Wait()
		if ctx.Err() != nil {
			killGroup(cmd.Process.Pid) // a helper that outlived git's interrupt
		}
		forgetChild(cmd.Process.Pid)
	}
	if err == nil {
		return stdout.Bytes(), nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("git %s: %w", subcommand(args), ctx.Err())
	}
	ce := &cliError{args: args, stdout: stdout.String(), stderr: stderr.String(), err: err, code: -1}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ce.code = ee.ExitCode()
	}
	if reason := busyMessage(ce.stderr); reason != "" {
		return nil, fmt.Errorf("%w: %s (%w)", ErrBusy, reason, ce)
	}
	return nil, ce
}

func cliEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		drop := false
		for _, p := range cliEnvDrop {
			drop = drop || strings.HasPrefix(kv, p)
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return append(out, cliEnvSet...)
}

// lockRE finds the lock file in git's "Unable to create '<path>.lock': File
// exists." (the path may hold a quote, hence the greedy match up to ".lock").
var lockRE = regexp.MustCompile(`Unable to create '(.*\.lock)': File exists`)

// busyMessage recognises git's complaints about locks held by another git
// process and about repository states that forbid committing. It returns a
// short reason, or "" when stderr says something else.
func busyMessage(stderr string) string {
	switch {
	case strings.Contains(stderr, ".lock': File exists"):
		// "Unable to create '/repo/.git/index.lock': File exists."
		if m := lockRE.FindStringSubmatch(stderr); m != nil {
			return m[1] + " exists (another git command is running)"
		}
		return "a git lock file exists (another git command is running)"
	case strings.Contains(stderr, "cannot lock ref"):
		// HEAD or the branch moved while this commit was being made.
		return "the branch moved during the commit"
	case strings.Contains(stderr, "unmerged files"), strings.Contains(stderr, "unresolved conflict"):
		return "unmerged index entries"
	case strings.Contains(stderr, "partial commit during a"):
		// "cannot do a partial commit during a merge/cherry-pick."
		return "a merge or cherry-pick is in progress"
	}
	return ""
}

func findGit(bin string) (string, error) {
	if bin == "" {
		bin = "git"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoGit, err)
	}
	return path, nil
}

var versionRE = regexp.MustCompile(`^git version (\d+)\.(\d+)`)

// checkVersion makes sure the git binary runs and is recent enough.
func (r *Repo) checkVersion() error {
	out, err := r.run(context.Background(), nil, "version")
	if err != nil {
		return fmt.Errorf("%w: %s does not run: %w", ErrNoGit, r.gitBin, err)
	}
	m := versionRE.FindStringSubmatch(string(out))
	if m == nil {
		return fmt.Errorf("%w: cannot parse %q", ErrNoGit, strings.TrimSpace(string(out)))
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < minGit[0] || major == minGit[0] && minor < minGit[1] {
		return fmt.Errorf("%w: %s is too old, need git %d.%d or later",
			ErrNoGit, strings.TrimSpace(string(out)), minGit[0], minGit[1])
	}
	return nil
}

// checkCLIView makes sure the git CLI works in this repository and sees the
// same work tree and git directory as go-git. git refuses, for example, a
// repository owned by another user (safe.directory); that turns commits
// off like a missing binary. A disagreement (core.worktree, which go-git
// ignores) is an error: reads and writes would go to different places.
func (r *Repo) checkCLIView() error {
	out, err := r.run(context.Background(), nil, "rev-parse", "--show-toplevel", "--absolute-git-dir")
	if err != nil {
		return fmt.Errorf("%w: git cannot use %s: %w", ErrNoGit, r.root, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return fmt.Errorf("%w: git rev-parse said %q", ErrNoGit, out)
	}
	same := func(a, b string) bool {
		ra, errA := filepath.EvalSymlinks(a)
		rb, errB := filepath.EvalSymlinks(b)
		return errA == nil && errB == nil && ra == rb
	}
	if !same(lines[0], r.root) || !same(lines[1], r.gitDir) {
		return fmt.Errorf("open: git sees work tree %s (git dir %s), go-git sees %s (%s)",
			lines[0], lines[1], r.root, r.gitDir)
	}
	return nil
}
