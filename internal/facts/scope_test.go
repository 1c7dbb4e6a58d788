package facts

import "testing"

func TestScoped(t *testing.T) {
	for _, c := range []struct {
		fact Fact
		want string
	}{
		{Fact{Type: "project"}, "here"},
		{Fact{Type: "project", Project: Global}, ""},
		{Fact{Type: "project", Project: "other"}, "other"},
		{Fact{Type: "feedback"}, ""},
		{Fact{Type: "feedback", Cites: []string{"a.go"}}, "here"},
		{Fact{Type: "reference", Cites: []string{"a.go"}, Project: Global}, ""},
		{Fact{Type: "user", Cites: []string{"a.go"}}, ""},
		{Fact{Type: "user", Project: "other"}, "other"},
	} {
		if got := c.fact.Scoped("here").Project; got != c.want {
			t.Errorf("%+v: project %q, want %q", c.fact, got, c.want)
		}
	}
}
