package extractor

import (
	"os"
	"time"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/transcript"
)

// projectSlug is the project slug of a session's working directory.
func projectSlug(dir string) string { return project.Slug(dir) }

// agentName is the design's name for a transcript source.
func agentName(source string) string {
	switch source {
	case "claude":
		return "claude-code"
	case "opencode-legacy":
		return "opencode"
	}
	return source
}

// stamp records in every file a pass writes (but the old fact of a
// supersession, which only gets its mark) where it came from
// (metadata.source: agent, session, the messages drawn from, time, working
// directory, host), when (metadata.updated) and its project: a user fact
// never has one; the model's choice otherwise ("global" for none); a
// project fact without one belongs to the session's project.
func stamp(changes []Change, source, id, dir string, msgs []transcript.Message, now time.Time) {
	src := index.Source{Agent: agentName(source), Session: id, At: now.UTC().Format(time.RFC3339), Cwd: dir}
	if len(msgs) > 0 {
		src.Messages = messageRef(msgs[0]) + ".." + messageRef(msgs[len(msgs)-1])
	}
	src.Host, _ = os.Hostname()
	slug := ""
	if dir != "" {
		slug = project.Slug(dir)
	}
	for i := range changes {
		c := &changes[i]
		m, err := c.fact()
		if err != nil || c.Action == "supersede" {
			continue // a superseded fact keeps its text, date and project: only the mark is new
		}
		m.Sources = append(m.Sources, src)
		m.Updated = now.Format(time.DateOnly)
		switch {
		case m.Type == "user":
			m.Project = ""
		case c.scope == "global":
			m.Project = ""
		case project.Valid(c.scope):
			m.Project = c.scope
		case m.Type == "project" && m.Project == "" && c.Action == "create":
			m.Project = slug
		}
		if cites := recordCites(c.cites, m.Project, dir); len(cites) > 0 {
			m.Cites = cites
		}
		c.Data = m.Format()
		m.Hash = index.Hash(c.Data) // m is c.Data parsed: no second parse
	}
}

// recordCites records the paths the model said a fact of project slug
// rests on that are files inside the root of the session's directory dir,
// with their blobs now; every other path — outside the root, missing, a
// folder, a link out — is dropped. A fact of another project than the
// session's (or a global one) cites nothing: its paths would not be
// relative to its own project's root.
func recordCites(paths []string, slug, dir string) []index.Cite {
	if len(paths) == 0 || slug == "" || dir == "" || project.Slug(dir) != slug {
		return nil
	}
	root := project.Root(dir)
	var out []index.Cite
	seen := map[string]bool{}
	for _, p := range paths {
		got, err := cite.Record(root, root, []string{p})
		if err != nil || len(got) != 1 || seen[got[0].String()] {
			continue
		}
		seen[got[0].String()] = true
		out = append(out, got[0])
	}
	return out
}

// messageRef names a message for provenance: its id, else its time.
func messageRef(m transcript.Message) string {
	if m.ID != "" {
		return m.ID
	}
	return m.Time.UTC().Format(time.RFC3339)
}
