package stamp

import "testing"

func TestStrip(t *testing.T) {
	in := "---\nname: a\nmetadata:\n  type: user\n  updated: 2026-11-23\n  source:\n    - agent: cli\n      at: x\n  team: core\n---\nBody.\n"
	want := "---\nname: a\nmetadata:\n  type: user\n  team: core\n---\nBody.\n"
	if got := Strip(in); got != want {
		t.Fatalf("Strip =\n%s", got)
	}
}
