package install

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// runner runs the service manager's and git's command-line tools, found on
// its own PATH rather than the process's, so that the PATH install was given
// is the one that counts everywhere (and tests can put stand-ins on it).
type runner struct {
	path string   // PATH to search and to give the command
	env  []string // environment of the command; nil → the process's
}

// notFoundError says a command is not on the runner's PATH.
type notFoundError struct{ name, path string }

func (e *notFoundError) Error() string {
	return fmt.Sprintf("%s not found on PATH %s", e.name, e.path)
}

// output runs name with args and returns its standard output without
// surrounding white space. On a non-zero exit it returns the output too,
// with an error that quotes the command and its standard error.
func (r runner) output(ctx context.Context, name string, args ...string) (string, error) {
	bin, err := LookPath(name, r.path)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	env := r.env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(withoutKey(env, "PATH"), "PATH="+r.path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	out := strings.TrimSpace(stdout.String())
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = out
		}
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return out, nil
}

// LookPath finds the executable file named name in the directories of the
// PATH-style list path (not the process's PATH). Empty and relative entries
// are skipped.
func LookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &notFoundError{name: name, path: path}
}

// CleanPath returns path without empty, relative and repeated entries: what
// a service may safely run with.
func CleanPath(path string) string {
	var keep []string
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(path) {
		if filepath.IsAbs(dir) && !seen[dir] {
			seen[dir] = true
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

func withoutKey(env []string, key string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// Journal runs journalctl, found on path, for the user unit: its last n
// lines, and with follow what it appends, on stdout and stderr. A ctx
// ended (Ctrl-C, which journalctl gets too) is not a failure.
func Journal(ctx context.Context, path string, n int, follow bool, stdout, stderr io.Writer) error {
	bin, err := LookPath("journalctl", path)
	if err != nil {
		return fmt.Errorf("the service logs to the systemd journal, but %w", err)
	}
	args := []string{"--user", "-u", UnitName, "-n", strconv.Itoa(n), "--no-pager"}
	if follow {
		args = append(args, "-f")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("journalctl: %w", err)
	}
	return nil
}
