// Package project names the project a working directory belongs to: the
// slug that metadata.project holds and that MEMORY.<slug>.md is named after.
//
// The rule (DESIGN.md, "Recall"): the kebab-cased base name of the top level
// of the git repository that holds the directory, a linked worktree counting
// as its main repository; else of the directory itself. Slug runs at every
// agent session start, so it reads a few small files and starts no git
// process.
package project

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxLen is the longest slug, in bytes.
const MaxLen = 64

// fallback is the slug of a name with no letter or digit to keep.
const fallback = "project"

// Slug returns the project slug of dir: Kebab of the base name of the top
// level of the git repository holding dir, else of dir itself.
//
// dir is made absolute and its symbolic links are resolved first (as git
// does with its working directory), so a directory reached through a link
// has the slug of the directory it points to. The repository is found by
// walking up from there to the first folder with a ".git" entry:
//   - a ".git" folder: that folder is the top level;
//   - a ".git" file ("gitdir: PATH") pointing into the "worktrees" folder of
//     another repository's git directory (a linked worktree): the main
//     repository's top level, found through the "commondir" file, else the
//     parent of "worktrees" (a bare main repository "name.git" gives "name");
//   - any other ".git" file (a submodule, a separate git dir): the folder
//     holding it.
//
// Slug never fails: a directory that does not exist, or a ".git" file that
// cannot be read, still gives a slug (of the deepest name it could see).
func Slug(dir string) string {
	return Kebab(filepath.Base(top(dir)))
}

// Root returns the top level of the working tree holding dir: the nearest
// folder, from dir up, with a ".git" entry (a linked worktree is its own
// root, unlike in Slug), else dir itself; absolute, symbolic links
// resolved. Paths a fact cites (metadata.cites) are relative to it. Like
// Slug it starts no git process.
func Root(dir string) string {
	abs, err := absReal(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		d = parent
	}
}

// absReal returns dir ("" is the current folder) absolute, with symbolic
// links resolved where they can be.
func absReal(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// top returns the folder whose base name names dir's project.
func top(dir string) string {
	abs, err := absReal(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; {
		fi, err := os.Stat(filepath.Join(d, ".git"))
		if err == nil {
			if fi.IsDir() {
				return d
			}
			if main := mainRepository(d); main != "" {
				return main
			}
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		d = parent
	}
}

// mainRepository returns the top level of the main repository when
// wt/.git is the ".git" file of a linked worktree, else "".
func mainRepository(wt string) string {
	gitdir := readGitdir(filepath.Join(wt, ".git"))
	if gitdir == "" {
		return ""
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(wt, gitdir)
	}
	gitdir = filepath.Clean(gitdir)
	common := ""
	if data, err := readSmall(filepath.Join(gitdir, "commondir")); err == nil {
		if c := strings.TrimSpace(data); c != "" {
			common = c
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitdir, common)
			}
		}
	}
	if common == "" {
		// Without commondir, a linked worktree's git dir is
		// <common>/worktrees/<name>.
		parent := filepath.Dir(gitdir)
		if filepath.Base(parent) != "worktrees" {
			return "" // a submodule or a separate git dir: not a worktree
		}
		common = filepath.Dir(parent)
	}
	common = filepath.Clean(common)
	if real, err := filepath.EvalSymlinks(common); err == nil {
		common = real
	}
	if filepath.Base(common) == ".git" {
		return filepath.Dir(common)
	}
	// A bare main repository: "name.git" is named "name".
	return strings.TrimSuffix(common, ".git")
}

// readGitdir returns the path of a "gitdir: PATH" file, or "".
func readGitdir(name string) string {
	data, err := readSmall(name)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(data, "\n")
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir:")
	if !ok {
		return ""
	}
	return strings.TrimSpace(rest)
}

// readSmall reads the first few kilobytes of a small text file.
func readSmall(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	return string(data), err
}

// Kebab turns any name into a slug: lower-cased, every run of characters
// other than a-z and 0-9 replaced by one hyphen, hyphens trimmed from both
// ends, cut to MaxLen bytes (and trimmed again); "project" when nothing is
// left. "My Project" gives "my-project", "Über_Tool.v2" gives "ber-tool-v2".
func Kebab(name string) string {
	b := make([]byte, 0, min(len(name), MaxLen+1))
	gap := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if gap && len(b) > 0 {
				b = append(b, '-')
			}
			gap = false
			b = append(b, byte(r))
			if len(b) > MaxLen {
				break
			}
			continue
		}
		gap = true
	}
	if len(b) > MaxLen {
		b = b[:MaxLen]
	}
	s := strings.Trim(string(b), "-")
	if s == "" {
		return fallback
	}
	return s
}

// Valid reports whether slug is a project slug memoryd accepts in
// metadata.project and in an index file name: ^[a-z0-9]+(-[a-z0-9]+)*$,
// at most MaxLen bytes.
func Valid(slug string) bool {
	if slug == "" || len(slug) > MaxLen || slug[0] == '-' || slug[len(slug)-1] == '-' {
		return false
	}
	for i := 0; i < len(slug); i++ {
		c := slug[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && slug[i-1] != '-':
		default:
			return false
		}
	}
	return true
}
