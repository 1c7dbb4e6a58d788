package extractor

import (
	"time"

	"github.com/memoryd/memoryd/internal/facts"
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
	src := facts.NewSource(agentName(source), now, dir)
	src.Session = id
	if len(msgs) > 0 {
		src.Messages = messageRef(msgs[0]) + ".." + messageRef(msgs[len(msgs)-1])
	}
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
		facts.Stamp(m, src, now)
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
		if cites := facts.ModelCites(c.cites, m.Project, dir); len(cites) > 0 {
			m.Cites = cites
		}
		c.Data = m.Format()
		m.Hash = index.Hash(c.Data) // m is c.Data parsed: no second parse
	}
}

// messageRef names a message for provenance: its id, else its time.
func messageRef(m transcript.Message) string {
	if m.ID != "" {
		return m.ID
	}
	return m.Time.UTC().Format(time.RFC3339)
}
