package index

import "testing"

func TestInboxTargetAndFile(t *testing.T) {
	for _, c := range []struct {
		fact string
		n    int
		file string
	}{
		{"user-name.md", 1, "_inbox/user-name.md"},
		{"projects/x/fact.md", 1, "_inbox/projects/x/fact.md"},
		{"projects/x/fact.md", 3, "_inbox/projects/x/fact.mine-3.md"},
		{"user-name.md", 2, "_inbox/user-name.mine-2.md"},
	} {
		if got := InboxFile(c.fact, c.n); got != c.file {
			t.Errorf("InboxFile(%q, %d) = %q, want %q", c.fact, c.n, got, c.file)
		}
		if got := InboxTarget(c.file); got != c.fact {
			t.Errorf("InboxTarget(%q) = %q, want %q", c.file, got, c.fact)
		}
	}
}
