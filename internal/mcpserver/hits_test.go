package mcpserver

import (
	"testing"

	"github.com/memoryd/memoryd/internal/search"
)

// TestHitTitle: a hit's title is the index line's — the title, else the
// name as words with its first letter upper-cased (a letter of any
// script, whole), else the file.
func TestHitTitle(t *testing.T) {
	for _, c := range []struct {
		hit  search.Hit
		want string
	}{
		{search.Hit{Title: "Deploys", Name: "deploy-days", File: "project-deploy-days.md"}, "Deploys"},
		{search.Hit{Name: "deploy-days", File: "project-deploy-days.md"}, "Deploy days"},
		{search.Hit{Name: "éclair-recipe", File: "user-eclair.md"}, "Éclair recipe"},
		{search.Hit{File: "user-x.md"}, "user-x.md"},
	} {
		if got := HitTitle(c.hit); got != c.want {
			t.Errorf("HitTitle(%+v) = %q, want %q", c.hit, got, c.want)
		}
	}
}
