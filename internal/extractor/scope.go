package extractor

import (
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/transcript"
)

// Which sessions extraction takes (extract.since, extract.exclude): the
// sessions active since Options.Since, and none that Options.Exclude
// names. A session asked for by its ID (`memoryd extract --session`) is
// taken whatever its age, never when excluded.

// excluded reports whether a pattern of exclude names s: an agent's name
// ("claude"; "opencode" takes every OpenCode channel too) or a project
// folder — a path or a glob, absolute, with the folder and every folder
// below it.
func excluded(exclude []string, s transcript.Session) bool {
	for _, p := range exclude {
		if !strings.ContainsRune(p, '/') {
			if s.Source == p || strings.HasPrefix(s.Source, p+"-") {
				return true
			}
			continue
		}
		if s.Dir == "" {
			continue
		}
		for d := filepath.Clean(s.Dir); ; d = filepath.Dir(d) {
			if ok, _ := filepath.Match(p, d); ok {
				return true
			}
			if parent := filepath.Dir(d); parent == d {
				break
			}
		}
	}
	return false
}

// SplitExclude reads extract.exclude: comma-separated patterns, "~/"
// read as home, paths cleaned.
func SplitExclude(list, home string) []string {
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
			continue
		case p == "~" || strings.HasPrefix(p, "~/"):
			p = filepath.Join(home, p[1:])
		}
		if strings.ContainsRune(p, '/') {
			p = filepath.Clean(p)
		}
		out = append(out, p)
	}
	return out
}

// inScope keeps the sessions of list that extraction takes: not excluded,
// and, with horizon set, active after it.
func (x *Extractor) inScope(list []transcript.Session, horizon bool) []transcript.Session {
	kept := list[:0:0]
	for _, s := range list {
		if excluded(x.opts.Exclude, s) || horizon && !x.opts.Since.IsZero() && !s.Updated.After(x.opts.Since) {
			continue
		}
		kept = append(kept, s)
	}
	return kept
}
