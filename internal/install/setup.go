package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/memoryd/memoryd/internal/atomicfile"
)

// configHeader starts a config file that install creates.
const configHeader = "# memoryd configuration, written by `memoryd install`.\n" +
	"# The other keys and their environment variables are listed in the README.\n"

// setupFolder does the steps that need no service manager: the memory
// folder, the config file, PROTOCOL.md and the git check.
func setupFolder(ctx context.Context, o *Options, r *Report) error {
	fi, err := os.Stat(o.MemoryDir)
	switch {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("install: memory folder %s is not a folder", o.MemoryDir)
	case err == nil:
		r.step(o, Step{What: "memory folder", Path: o.MemoryDir, Outcome: Unchanged})
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(o.MemoryDir, 0o755); err != nil {
			return fmt.Errorf("install: memory folder: %w", err)
		}
		r.step(o, Step{What: "memory folder", Path: o.MemoryDir, Outcome: Created})
	default:
		return fmt.Errorf("install: memory folder: %w", err)
	}

	res, err := ensureConfig(o.ConfigPath, o.MemoryDir)
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	r.step(o, Step{What: "config file", Path: o.ConfigPath, Outcome: res})
	if o.Sync != nil {
		res, err := SetSyncEnabled(o.ConfigPath, *o.Sync)
		if err != nil {
			return fmt.Errorf("install: %w", err)
		}
		r.step(o, Step{What: "sync", Path: o.ConfigPath, Outcome: res, Note: fmt.Sprintf("sync.enabled: %t", *o.Sync)})
		if res == Updated {
			r.hint(o, "A daemon already running reads sync.enabled when it starts again: memoryd restart")
		}
	}

	if err := ensureProtocol(o, r); err != nil {
		return err
	}
	return ensureRepo(ctx, o, r)
}

// ensureConfig makes the config file at path name memoryDir. A missing file
// is created (0600: it may later hold an API key) with only memory_dir; a
// file without memory_dir gets the line appended, everything else in it kept
// byte for byte. A memory_dir that names another folder is an error rather
// than a silent choice between the two.
func ensureConfig(path, memoryDir string) (Outcome, error) {
	line, err := yaml.Marshal(map[string]string{"memory_dir": memoryDir})
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		dir := filepath.Dir(path)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("config: %w", err)
		}
		if _, err := atomicfile.Write(dir, filepath.Base(path), append([]byte(configHeader), line...), 0o600); err != nil {
			return "", fmt.Errorf("config: %w", err)
		}
		return Created, nil
	}
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("config %s: %w", path, err)
	}
	v, ok := doc["memory_dir"]
	if !ok {
		if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
			data = append(data, '\n')
		}
		if _, err := writeFollowing(path, append(data, line...), 0o600); err != nil {
			return "", fmt.Errorf("config: %w", err)
		}
		return Updated, nil
	}
	s, _ := v.(string)
	switch {
	case s == "":
		return "", fmt.Errorf("config %s: memory_dir is empty; set it to %s", path, memoryDir)
	case filepath.Clean(s) != filepath.Clean(memoryDir):
		return "", fmt.Errorf("config %s already sets memory_dir: %s, not %s; edit the file, or install without a different memory folder", path, s, memoryDir)
	}
	return Unchanged, nil
}

// ensureRepo reports the git repository that holds the memory folder. With
// none, GitInit runs `git init` in the memory folder itself (not its parent,
// which may well be the home folder); without GitInit it only advises.
func ensureRepo(ctx context.Context, o *Options, r *Report) error {
	if root, ok := findRepo(o.MemoryDir); ok {
		r.step(o, Step{What: "git repository", Path: root, Outcome: Found})
		return nil
	}
	if !o.GitInit {
		r.step(o, Step{What: "git repository", Path: o.MemoryDir, Outcome: Missing, Note: "not inside a git repository"})
		r.hint(o, "The memory folder is not inside a git repository: MEMORY.md stays up to date, but commits, "+
			"compaction and undo are off. Move the folder into your notes repository, or run "+
			"`memoryd install --git-init` to make it a repository of its own.")
		return nil
	}
	if _, err := o.runner().output(ctx, "git", "init", "--quiet", o.MemoryDir); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	r.step(o, Step{What: "git repository", Path: o.MemoryDir, Outcome: Created, Note: "git init"})
	return nil
}

// findRepo walks up from dir to the first folder holding .git (a folder, or
// a file in a linked worktree or submodule).
func findRepo(dir string) (string, bool) {
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// writeFollowing writes path atomically; when path is a symlink (a dotfiles
// setup) it writes the file the link points to and keeps the link.
func writeFollowing(path string, data []byte, perm fs.FileMode) (bool, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return atomicfile.Write(filepath.Dir(path), filepath.Base(path), data, perm)
}
