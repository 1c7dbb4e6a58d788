package gitstore

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
)

// This file finds the new files of the memory folder that a .gitignore
// hides from git, so that memoryd can say so instead of never committing them.

// Ignored returns which of paths (relative to the memory folder) git would
// never commit: files its ignore rules exclude that it does not track. No
// checkpoint holds such a file, so nothing may change or delete it
// unattended. Paths may not exist.
func (r *Repo) Ignored(ctx context.Context, paths []string) (map[string]bool, error) {
	if r.gitErr != nil {
		return nil, r.gitErr
	}
	specs, err := r.pathspecs(paths)
	if err != nil || len(specs) == 0 {
		return nil, err
	}
	ignored, err := r.checkIgnore(ctx, specs)
	if err != nil {
		return nil, fmt.Errorf("check ignored files: %w", err)
	}
	out := make(map[string]bool, len(ignored))
	for s := range ignored {
		out[r.unspec(s)] = true
	}
	return out, nil
}

// IgnoredFile is a new file in the memory folder that the repository's
// ignore rules exclude, so that no commit takes it, and the rule that
// does: "SOURCE:LINE: PATTERN" as `git check-ignore -v` names it.
type IgnoredFile struct {
	Path, Rule string
	Fix        string // how to let the memory folder's files in
}

// IgnoredNew returns the new files in the memory folder, among those
// tracked accepts, that git's ignore rules exclude: what the next commit
// would leave out, with the rule that does (doctor's check).
func (r *Repo) IgnoredNew(tracked func(rel string) bool) ([]IgnoredFile, error) {
	_, ignored, err := r.changes(tracked)
	return ignored, err
}

// dropIgnored removes new files that git's ignore rules exclude (they
// are never committed), and returns them with the rule that excludes each.
func (r *Repo) dropIgnored(added []Change) ([]Change, []IgnoredFile, error) {
	if len(added) == 0 || r.gitErr != nil {
		return added, nil, nil
	}
	specs := make([]string, len(added))
	for i, c := range added {
		specs[i] = r.spec(c.Path)
	}
	rules, err := r.ignoreRules(context.Background(), specs)
	if err != nil || len(rules) == 0 {
		return added, nil, err
	}
	kept := added[:0]
	var ignored []IgnoredFile
	for i, c := range added {
		if rule, ok := rules[specs[i]]; ok {
			ignored = append(ignored, IgnoredFile{Path: c.Path, Rule: rule, Fix: r.unignoreFix()})
			continue
		}
		kept = append(kept, c)
	}
	return kept, ignored, nil
}

// unignoreFix says how to let the memory folder's files past an ignore
// rule: a negated pattern after it re-includes them, unless the rule
// excludes a folder above them (then only removing it does).
func (r *Repo) unignoreFix() string {
	line := "!*.md"
	if r.rel != "" {
		line = "!/" + r.rel + "/**"
	}
	return fmt.Sprintf("remove that rule, or add the line %q after it in the same file (`git check-ignore -v FILE` names the rule)", line)
}

// ignoreRules returns, for each work-tree path of specs that git ignores,
// the rule that excludes it ("SOURCE:LINE: PATTERN"). A path that only a
// negated pattern ("!keep.md") matches is not ignored, and left out.
func (r *Repo) ignoreRules(ctx context.Context, specs []string) (map[string]string, error) {
	top := make([]string, len(specs))
	for i, s := range specs {
		top[i] = ":(top)" + s
	}
	out, err := r.run(ctx, nulJoin(top), "check-ignore", "-z", "-v", "--stdin")
	var ce *cliError
	if errors.As(err, &ce) && ce.code == 1 {
		return nil, nil // none ignored
	}
	if err != nil {
		return nil, err
	}
	// Four fields a path: source, line number, pattern, path.
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	rules := make(map[string]string)
	for i := 0; i+3 < len(f); i += 4 {
		if strings.HasPrefix(f[i+2], "!") {
			continue
		}
		rules[strings.TrimPrefix(f[i+3], ":(top)")] = fmt.Sprintf("%s:%s: %s", f[i], f[i+1], f[i+2])
	}
	return rules, nil
}

// checkIgnore returns the set of work-tree paths git ignores. check-ignore
// takes no literal pathspecs; ":(top)" keeps a leading ':' in a name from
// reading as magic, and it matches names, not globs, anyway.
func (r *Repo) checkIgnore(ctx context.Context, specs []string) (map[string]bool, error) {
	top := make([]string, len(specs))
	for i, s := range specs {
		top[i] = ":(top)" + s
	}
	out, err := r.run(ctx, nulJoin(top), "check-ignore", "-z", "--stdin")
	var ce *cliError
	if errors.As(err, &ce) && ce.code == 1 {
		return nil, nil // none ignored
	}
	if err != nil {
		return nil, err
	}
	ignored := make(map[string]bool)
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			ignored[strings.TrimPrefix(p, ":(top)")] = true
		}
	}
	return ignored, nil
}

// spec turns a memory-folder path into a work-tree path.
func (r *Repo) spec(rel string) string {
	if r.rel == "" {
		return rel
	}
	return path.Join(r.rel, rel)
}

// unspec turns a work-tree path below the memory folder back into a
// memory-folder path.
func (r *Repo) unspec(spec string) string {
	if r.rel == "" {
		return spec
	}
	return strings.TrimPrefix(spec, r.rel+"/")
}

func nulJoin(specs []string) []byte {
	var b strings.Builder
	for _, s := range specs {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return []byte(b.String())
}
