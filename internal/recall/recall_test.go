package recall

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var deploy = Fact{File: "project-deploy.md", Title: "Deploy", Description: "Deploys app-a with make ship",
	Body: "Run make ship from the repository root.\n\nNever on a Friday."}

func TestWords(t *testing.T) {
	for _, c := range []struct {
		prompt string
		want   []string
	}{
		{"thanks, that's all", nil},
		{"Yes, go ahead please!", nil},
		{"ok", nil},
		{"How do I deploy this?", []string{"deploy"}},
		{"Deploying the billing webhooks", []string{"deploy", "bill", "webhook"}},
		{"fix cmd/memoryd/recall.go", []string{"fix", "cmd", "memoryd", "recall"}},
	} {
		if got := Words(c.prompt); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.prompt, got, c.want)
		}
	}
}

func TestRelevant(t *testing.T) {
	for _, c := range []struct {
		prompt string
		want   bool
	}{
		{"how do I deploy this?", true},
		{"we deployed on friday, why?", true},
		{"thanks, that's all", false},
		{"deploy the staging cluster with terraform", false}, // one word of four
		{"ship it", true},
		{"the weather in Paris", false},
	} {
		if got := Relevant(deploy, Words(c.prompt)); got != c.want {
			t.Errorf("Relevant(deploy, %q) = %v, want %v", c.prompt, got, c.want)
		}
	}
}

func TestPickSkipsAndCaps(t *testing.T) {
	var cands []Fact
	for i := range 5 {
		cands = append(cands, Fact{File: fmt.Sprintf("f%d.md", i), Title: "Deploy", Description: "deploy notes"})
	}
	got := Pick("deploy", cands, func(f string) bool { return f == "f0.md" })
	if len(got) != MaxFacts || got[0].File != "f1.md" {
		t.Fatalf("Pick: %v", got)
	}
}

func TestRender(t *testing.T) {
	text, shown := Render([]Fact{deploy}, 1500)
	want := Preface + "\n- [Deploy](project-deploy.md) — Deploys app-a with make ship\n" +
		"  Run make ship from the repository root.\n  Never on a Friday.\n"
	if text != want || len(shown) != 1 {
		t.Fatalf("Render:\n%s\nwant:\n%s", text, want)
	}
	if text, _ := Render(nil, 1500); text != "" {
		t.Fatalf("Render of nothing: %q", text)
	}
	if text, _ := Render([]Fact{deploy}, len(Preface)+10); text != "" {
		t.Fatalf("Render with no room: %q", text)
	}
	long := deploy
	long.Body = strings.Repeat("word ", 1000)
	facts := []Fact{long, long, long}
	for _, max := range []int{300, 700, 1500} {
		text, _ := Render(facts, max)
		if len(text) > max {
			t.Errorf("Render within %d: %d bytes", max, len(text))
		}
	}
}

func TestSessionsBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s Sessions
	s.Add("old", []string{"a.md"}, now.Add(-MaxAge-time.Hour))
	for i := range MaxSessions + 10 {
		s.Add(fmt.Sprint(i), []string{"a.md"}, now.Add(time.Duration(i)*time.Second))
	}
	for i := range MaxFiles + 5 {
		s.Add("busy", []string{fmt.Sprintf("f%d.md", i)}, now.Add(time.Hour))
	}
	s.Prune(now.Add(time.Hour))
	if len(s.Sessions) != MaxSessions || s.Sessions["old"] != nil || s.Sessions["0"] != nil || s.Sessions["busy"] == nil {
		t.Fatalf("pruned to %d sessions", len(s.Sessions))
	}
	if n := len(s.Sessions["busy"].Files); n != MaxFiles || !s.Given("busy", fmt.Sprintf("f%d.md", MaxFiles+4)) || s.Given("busy", "f0.md") {
		t.Fatalf("a session keeps %d files", n)
	}
}
