package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

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
	return fmt.Sprintf("git %s: %s", e.args[0], msg)
}

func (e *cliError) Unwrap() error { return e.err }

// literal makes add, commit and restore read pathspecs as plain names, so a
// file named ":x.md" or "*.md" means just that file.
const literal = "--literal-pathspecs"

// run executes git in the work tree top with stdin and returns its standard
// output. A non-zero exit becomes a *cliError; one caused by git's locks or
// by the repository's state is additionally wrapped with ErrBusy.
func (r *Repo) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	full := make([]string, 0, len(args)+1)
	full = append(full, "--no-pager")
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, r.gitBin, full...)
	cmd.Dir = r.root
	cmd.Env = cliEnv(cmd.Environ())
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
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

// busyMessage recognises git's complaints about locks held by another git
// process and about repository states that forbid committing. It returns a
// short reason, or "" when stderr says something else.
func busyMessage(stderr string) string {
	switch {
	case strings.Contains(stderr, ".lock': File exists"):
		// "Unable to create '/repo/.git/index.lock': File exists."
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
