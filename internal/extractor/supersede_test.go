package extractor

import (
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

// TestExtractSupersedes: a created fact that supersedes an existing one
// writes both in the pass's one commit: the new fact, and the old one kept
// with metadata.superseded_by, out of MEMORY.md and out of the next pass's
// context.
func TestExtractSupersedes(t *testing.T) {
	e := newEnv(t)
	e.writeByModel("project-release-may.md", strings.Replace(memoryFile("project", "release-may", "The release is due in May", "The release is due in May."), "  type: project\n", "  type: project\n  project: proj\n", 1))
	e.db.session("ses_1", "/home/ana/proj")
	e.db.turn("ses_1", "The release moved to July, the scope grew.", "Noted: July.")
	july := mem("create", "project", "release-july", "The release moved to July", "The release moved to July.\nWhy: the scope grew.")
	july["supersedes"] = "project-release-may.md"
	e.llm.set(answerWith(july))

	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 2 || res.Commit == "" {
		t.Fatalf("result %+v", res)
	}
	m, err := index.Parse("project-release-may.md", []byte(e.read("project-release-may.md")))
	if err != nil || m.SupersededBy != "project-release-july.md" || m.SupersededAt == "" || !strings.Contains(m.Body, "due in May") {
		t.Fatalf("old fact: %v\n%s", err, e.read("project-release-may.md"))
	}
	if idx := e.read(index.ProjectIndexFile("proj")); strings.Contains(idx, "release-may") || !strings.Contains(idx, "(project-release-july.md)") {
		t.Errorf("%s:\n%s", index.ProjectIndexFile("proj"), idx)
	}
	if body := git(t, e.notes, "log", "-1", "--format=%b"); !strings.Contains(body, "superseded project-release-may.md by project-release-july.md") {
		t.Errorf("commit body:\n%s", body)
	}
	if st := git(t, e.notes, "status", "--porcelain"); st != "" {
		t.Errorf("uncommitted:\n%s", st)
	}

	// The next pass does not show the superseded fact, and may not update it.
	e.db.turn("ses_1", "Also the release needs sign-off from Bea.", "Noted.")
	e.llm.set(answerWith(mem("update", "project", "release-may", "May", "The release is due in May, signed off by Bea.")))
	res, err = e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	calls := e.llm.calls()
	if p := calls[len(calls)-1].Prompt; strings.Contains(p, "due in May") {
		t.Errorf("the superseded fact was shown to the model:\n%s", p)
	}
	if len(res.Changes) != 0 || len(res.Rejected) != 1 || !strings.Contains(res.Rejected[0].Reason, "superseded") {
		t.Errorf("update of a superseded fact: %+v", res)
	}
}

// TestExtractSupersedesRefused: a proposal that supersedes a readonly or
// missing fact is refused whole; the old fact stays current.
func TestExtractSupersedesRefused(t *testing.T) {
	e := newEnv(t)
	e.writeByModel("project-freeze.md", "---\nname: freeze\ndescription: Billing freeze\nmetadata:\n  type: project\n  readonly: true\n---\nNo billing schema changes until June.\n")
	e.db.session("ses_1", "/home/ana/proj")
	e.db.turn("ses_1", "The billing freeze is over.", "Noted.")
	over := mem("create", "project", "freeze-over", "The billing freeze is over", "The billing freeze ended early.")
	over["supersedes"] = "project-freeze.md"
	gone := mem("create", "project", "deploys", "Deploys on Fridays", "Deploys happen on Fridays now.")
	gone["supersedes"] = "project-nothing.md"
	e.llm.set(answerWith(over, gone))
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 0 || len(res.Rejected) != 2 || !strings.Contains(res.Rejected[0].Reason, "readonly") ||
		!strings.Contains(res.Rejected[1].Reason, "not a memory") {
		t.Fatalf("result %+v", res)
	}
	if strings.Contains(e.read("project-freeze.md"), "superseded") {
		t.Error("a readonly fact was marked")
	}
}

// TestExtractSupersessionFollowsItsSuccessor: when the new fact goes to
// review, or lands in another project than the old one, the old fact is
// not marked: it stays current.
func TestExtractSupersessionFollowsItsSuccessor(t *testing.T) {
	for _, tc := range []struct {
		name, old, reason string
		opts              func(*Options)
	}{
		{"review", strings.Replace(memoryFile("project", "release-may", "May", "The release is due in May."), "  type: project\n", "  type: project\n  project: proj\n", 1),
			"is not written in this pass", func(o *Options) { o.Review = func(typ string) bool { return typ == "project" } }},
		{"another project", memoryFile("project", "release-may", "May", "The release is due in May."), "holds in another project", func(*Options) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.opts)
			e.writeByModel("project-release-may.md", tc.old)
			e.db.session("ses_1", "/home/ana/proj")
			e.db.turn("ses_1", "The release moved to July.", "Noted.")
			july := mem("create", "project", "release-july", "The release moved to July", "The release moved to July.")
			july["supersedes"] = "project-release-may.md"
			e.llm.set(answerWith(july))
			res, err := e.x.Extract(ctx, "opencode", "ses_1")
			if err != nil {
				t.Fatal(err)
			}
			if e.read("project-release-may.md") != tc.old || len(res.Rejected) != 1 || !strings.Contains(res.Rejected[0].Reason, tc.reason) {
				t.Errorf("result %+v\n%s", res, e.read("project-release-may.md"))
			}
		})
	}
}
