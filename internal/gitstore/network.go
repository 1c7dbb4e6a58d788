package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

var (
	// ErrNoRemoteBranch means the remote has no such branch (an empty
	// remote): the first push creates it.
	ErrNoRemoteBranch = errors.New("the remote has no such branch")
	// ErrPushRejected means the remote refused a push because its branch
	// moved on (not a fast-forward): fetch and integrate, then push again.
	ErrPushRejected = errors.New("the remote's branch moved on")
)

// Net configures memoryd's fetch and push.
type Net struct {
	// Timeout bounds the command; 0 means 2 minutes. When it ends, git and
	// its helpers are interrupted together (see run).
	Timeout time.Duration
	// Getenv reads the environment (GIT_SSH_COMMAND, GIT_SSH); nil means
	// os.Getenv.
	Getenv func(string) string
}

// lowSpeedTime is how long an http transfer may stay under lowSpeedLimit
// bytes a second before git gives up: a remote that accepts the connection
// and never answers ends the fetch in that time, whatever the timeout.
const (
	lowSpeedLimit = 1000
	lowSpeedTime  = 30 * time.Second
)

// Fetch fetches the remote's branch into the ref into (a remote-tracking
// ref, forced: the remote's word is what it has), leaving FETCH_HEAD, the
// index, HEAD and the work tree alone, and returns what into now names. It
// returns an error wrapping ErrNoRemoteBranch when the remote has no such
// branch. While it runs, memoryd's commits go ahead (see netVar).
func (r *Repo) Fetch(ctx context.Context, n Net, remote, branch, into string) (string, error) {
	_, err := r.runNet(ctx, n, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance",
		"--end-of-options", remote, "+refs/heads/"+branch+":"+into)
	if err != nil {
		if strings.Contains(GitMessage(err), "couldn't find remote ref") {
			return "", fmt.Errorf("%w: %s %s", ErrNoRemoteBranch, remote, branch)
		}
		return "", err
	}
	return r.ResolveCommit(ctx, into)
}

// Push pushes commit to the remote's branch: a plain push, never forced.
// A refusal because the branch moved on wraps ErrPushRejected.
func (r *Repo) Push(ctx context.Context, n Net, remote, commit, branch string) error {
	out, err := r.runNet(ctx, n, "push", "--quiet", "--end-of-options", remote, commit+":refs/heads/"+branch)
	if err != nil {
		msg := GitMessage(err) + "\n" + string(out)
		if strings.Contains(msg, "rejected") || strings.Contains(msg, "fetch first") || strings.Contains(msg, "non-fast-forward") {
			return fmt.Errorf("%w: %w", ErrPushRejected, err)
		}
		return err
	}
	return nil
}

// runNet runs a fetch or push: never prompting (ssh in batch mode unless
// the user chose their own ssh command, which is theirs to configure), an
// http transfer that stalls given up after lowSpeedTime, bounded by the
// timeout, and marked as memoryd's network command (netVar).
func (r *Repo) runNet(ctx context.Context, n Net, args ...string) ([]byte, error) {
	if r.gitErr != nil {
		return nil, r.gitErr
	}
	timeout := n.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	slow := int(min(lowSpeedTime, timeout).Seconds())
	full := []string{"-c", "http.lowSpeedLimit=" + strconv.Itoa(lowSpeedLimit), "-c", "http.lowSpeedTime=" + strconv.Itoa(max(slow, 1))}
	full = append(full, args...)
	out, err := r.runEnv(ctx, nil, r.netEnv(ctx, n), full...)
	var ce *cliError
	if errors.As(err, &ce) {
		return []byte(ce.stdout), err
	}
	return out, err
}

// netEnv is what fetch and push add to git's environment.
func (r *Repo) netEnv(ctx context.Context, n Net) []string {
	env := []string{"GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never", netVar}
	getenv := n.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("GIT_SSH_COMMAND") != "" || getenv("GIT_SSH") != "" || r.Config(ctx, "core.sshCommand") != "" {
		return env
	}
	return append(env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes -o ConnectTimeout=30 -o ServerAliveInterval=15 -o ServerAliveCountMax=2")
}

// ExitCode is the exit status of the git command that failed with err, or
// -1 when err is not a git command's exit.
func ExitCode(err error) int {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.code
	}
	return -1
}

// GitMessage is what git said on standard error when it failed with err,
// trimmed; "" when err is not a git command's exit.
func GitMessage(err error) string {
	var ce *cliError
	if errors.As(err, &ce) {
		return strings.TrimSpace(ce.stderr)
	}
	return ""
}
