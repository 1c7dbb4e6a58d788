package facts

import (
	"os"
	"time"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
)

// Every writer of a fact — a person through the CLI, an agent through the
// MCP server, an import, an extraction — records where the fact came from
// the same way: NewSource and Stamp. Extraction adds the session and the
// messages to its source.

// NewSource is a writer's entry in metadata.source: who wrote (an agent,
// or the command), when, from which folder, on which host.
func NewSource(who string, now time.Time, cwd string) index.Source {
	s := index.Source{Agent: who, At: now.UTC().Format(time.RFC3339), Cwd: cwd}
	s.Host, _ = os.Hostname()
	return s
}

// Stamp records in m that src wrote it now: src appended to
// metadata.source, metadata.updated today.
func Stamp(m *index.Memory, src index.Source, now time.Time) {
	m.Sources = append(m.Sources, src)
	m.Updated = now.Format(time.DateOnly)
}

// ModelCites records the paths a model said a fact of project slug rests
// on, relative to the root of the session's directory dir, that are files
// inside that root, with their blobs now; every other path — outside the
// root, missing, a folder, a link out — is dropped (recordCites). A fact of
// another project than the session's (or a global one) cites nothing: its
// paths would not be relative to its own project's root.
func ModelCites(paths []string, slug, dir string) []index.Cite {
	if len(paths) == 0 || slug == "" || dir == "" || project.Slug(dir) != slug {
		return nil
	}
	root := project.Root(dir)
	cites, _ := recordCites(root, root, paths, true)
	return cites
}

// recordCites records paths, resolved from base inside root, each with its
// blob now (cite.Record): the one cite recorder of every writer. lenient
// drops a path that cannot be recorded (what a model said in passing);
// else the first one refuses them all, with the reason (what a person or
// an agent saving a fact gave, who is told).
func recordCites(root, base string, paths []string, lenient bool) ([]index.Cite, error) {
	if !lenient {
		return cite.Record(root, base, paths)
	}
	var out []index.Cite
	seen := map[string]bool{}
	for _, p := range paths {
		got, err := cite.Record(root, base, []string{p})
		if err != nil || len(got) != 1 || seen[got[0].String()] {
			continue
		}
		seen[got[0].String()] = true
		out = append(out, got[0])
	}
	return out, nil
}
