package mcpserver

import "testing"

func TestTeamNames(t *testing.T) {
	tm := Team{Dir: "/x/shop/.memory", Name: ".memory"}
	for name, want := range map[string]string{
		"team:project-x.md":    "project-x.md",
		"team:project-x":       "project-x.md",
		".memory/project-x.md": "project-x.md",
		"project-x.md":         "",
		"team:../secret.md":    "",
		"team:sub/x.md":        "",
		".memory/":             "",
	} {
		got, ok := tm.rel(name)
		if got != want || ok != (want != "") {
			t.Errorf("rel(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := (Team{}).rel("team:x.md"); ok {
		t.Errorf("a project without team memory names a team fact")
	}
}
