package mcpserver

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/folder"
)

// Team is the team memory of the server's project: the facts checked in
// with the code in the repository's .memory/ folder (package team). They
// are searched and read beside the person's, named by their path from the
// project's root (".memory/x.md", or "team:x.md"), through the same gate;
// memory_save with scope "team" proposes a fact for it.
type Team struct {
	Dir    string     // the team folder; "" when the project has none
	Name   string     // its path from the project's root: ".memory"
	Search SearchFunc // its search: hits named relative to Dir, Hit.Team set
	// Propose puts f in the person's review inbox as a proposal for the
	// team memory and says what it did; nil: not in a project.
	Propose func(ctx context.Context, who string, f facts.Fact) (string, error)
}

// rel is the file inside the team folder that name names, false for a
// person's fact.
func (t Team) rel(name string) (string, bool) {
	if t.Dir == "" {
		return "", false
	}
	name = strings.TrimSpace(name)
	for _, p := range []string{"team:", t.Name + "/"} {
		if rel, ok := strings.CutPrefix(name, p); ok && rel != "" && !strings.Contains(rel, "/") && path.Clean(rel) == rel {
			if !strings.HasSuffix(rel, ".md") {
				rel += ".md"
			}
			return rel, true
		}
	}
	return "", false
}

// teamHits is the team's hits for q, through the gate, named from the
// project's root.
func (h *handlers) teamHits(ctx context.Context, q Query) []Hit {
	t := h.o.Team
	if t.Dir == "" || t.Search == nil {
		return nil
	}
	hits, err := t.Search(ctx, q)
	if err != nil {
		return nil // the person's hits stand; the team's folder is a bonus
	}
	var out []Hit
	for _, hit := range hits {
		d, m := h.o.Gate.DecideFile(folder.RoadMCP, t.Dir, hit.File, "")
		switch d.Verdict {
		case folder.Hold:
			continue
		case folder.Redact:
			hit.Title, hit.Description, hit.Snippet = d.Title, d.Description, ""
			if hit.Title == "" {
				hit.Title = m.Name
			}
		}
		hit.File = t.Name + "/" + hit.File
		out = append(out, hit)
	}
	return out
}

// readTeam is memory_read of the team fact rel.
func (h *handlers) readTeam(rel string) (*mcp.CallToolResult, any, error) {
	t := h.o.Team
	d, _ := h.o.Gate.DecideFile(folder.RoadMCP, t.Dir, rel, "")
	if d.Verdict == folder.Hold {
		return nil, nil, fmt.Errorf("%s/%s: %s", t.Name, rel, d.Reason)
	}
	head := "# " + t.Name + "/" + rel + " (the team's memory, checked in with the project)\n"
	if d.Verdict == folder.Redact {
		head += "# " + d.Reason + "\n"
	}
	return text(head + d.Text), nil, nil
}

// propose is memory_save with scope "team".
func (h *handlers) propose(ctx context.Context, req *mcp.CallToolRequest, in SaveIn) (*mcp.CallToolResult, any, error) {
	if h.o.Team.Propose == nil {
		return nil, nil, fmt.Errorf("scope team: this session is not in a git repository, and team memory lives in a project's repository")
	}
	if in.Replace || in.Supersedes != "" {
		return nil, nil, fmt.Errorf("scope team: replace and supersedes are for the user's own memory; a team fact is changed by editing its file in the repository")
	}
	f := facts.Fact{Type: in.Type, Name: in.Name, Description: in.Description, Body: in.Body, Cites: in.Cites, CiteFrom: h.o.Root}
	msg, err := h.o.Team.Propose(ctx, client(req), f)
	if err != nil {
		return nil, nil, err
	}
	return text(msg), nil, nil
}
