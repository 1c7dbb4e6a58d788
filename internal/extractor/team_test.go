package extractor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// teamAt gives the Team of sessions in dir: a marker line, and the team
// fact "project-tests-need-make.md" as the one every "tests" rule repeats.
func teamAt(dir string) func(*Options) {
	return func(o *Options) {
		o.Team = func(d string) *Team {
			if d != dir {
				return nil
			}
			return &Team{
				Mark: func(data []byte) []byte {
					return bytes.Replace(data, []byte("\nmetadata:\n"), []byte("\nmetadata:\n  team: \""+dir+"\"\n"), 1)
				},
				Duplicate: func(_ context.Context, name, _, _ string) (string, error) {
					if strings.Contains(name, "tests") {
						return "project-tests-need-make.md", nil
					}
					return "", nil
				},
			}
		}
	}
}

// TestExtractProposesTeamFacts: in a session whose project has team
// memory, the prompt offers "scope": "team"; a fact the model marks so
// goes to the inbox as a team proposal (marked, no path of this machine),
// never into the person's memory; one the team has is refused naming it;
// a user fact is never the team's; the person's own facts are written as
// before. In a project without team memory the mark is ignored.
func TestExtractProposesTeamFacts(t *testing.T) {
	e := newEnv(t, teamAt("/home/ana/shop"))
	e.db.session("ses_1", "/home/ana/shop")
	e.db.turn("ses_1", "The migrations must run with make migrate, never by hand. Also I like tea. Tests need make test-all.", "Noted.")
	migrate := mem("create", "project", "migrate-with-make", "Run migrations with make migrate, never by hand", "make migrate records each migration once.")
	migrate["scope"] = "team"
	tests := mem("create", "project", "tests-via-make", "Run the tests with make test-all", "They need the database.")
	tests["scope"] = "team"
	tea := mem("create", "user", "tea", "Likes green tea in the afternoon", "The user drinks green tea every afternoon, never coffee.")
	tea["scope"] = "team"
	e.llm.set(answerWith(migrate, tests, tea, mem("create", "feedback", "short-answers", "Prefers short answers", "Keep replies short.")))
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if p := e.llm.calls()[0].Prompt; !strings.Contains(p, `add "scope": "team"`) {
		t.Errorf("the prompt does not offer the team scope:\n%s", p)
	}
	prop := e.read("_inbox/project-migrate-with-make.md")
	if !strings.Contains(prop, "  team: \"/home/ana/shop\"\n") || !strings.Contains(prop, "session: ses_1") || strings.Contains(prop, "cwd:") || strings.Contains(prop, "host:") {
		t.Fatalf("the team proposal in the inbox:\n%s", prop)
	}
	if _, err := os.Stat(filepath.Join(e.mem, "project-migrate-with-make.md")); err == nil {
		t.Fatal("a team fact was written into the person's memory")
	}
	rejected := map[string]string{}
	for _, r := range res.Rejected {
		rejected[r.Name] = r.Reason
	}
	if !strings.Contains(rejected["project-tests-via-make.md"], ".memory/project-tests-need-make.md") || !strings.Contains(rejected["tea"], "not a team fact's type") {
		t.Errorf("rejections: %+v", res.Rejected)
	}
	if e.read("feedback-short-answers.md") == "" {
		t.Errorf("the person's own fact was not written; files %v", e.files())
	}

	// Another project, without team memory: the mark is ignored.
	e.db.session("ses_2", "/home/ana/other")
	e.db.turn("ses_2", "Deploys here go through make ship.", "Noted.")
	ship := mem("create", "project", "ship", "Deploy this project with make ship", "Deploys of this project go through make ship, which tags the release first.")
	ship["scope"] = "team"
	e.llm.set(answerWith(ship))
	if _, err := e.x.Extract(ctx, "opencode", "ses_2"); err != nil {
		t.Fatal(err)
	}
	if calls := e.llm.calls(); strings.Contains(calls[len(calls)-1].Prompt, `"scope": "team"`) {
		t.Errorf("the team scope is offered in a project without team memory")
	}
	if e.read("project-ship.md") == "" {
		t.Errorf("without team memory the fact is not the person's; files %v", e.files())
	}
}
