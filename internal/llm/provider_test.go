package llm

import "testing"

// TestEffectiveProvider: a configured provider wins; else opencode when it
// is on PATH, else none.
func TestEffectiveProvider(t *testing.T) {
	if name, why := EffectiveProvider("anthropic"); name != "anthropic" || why != "set in llm.provider" {
		t.Errorf("configured: %q, %q", name, why)
	}
	t.Setenv("PATH", t.TempDir())
	if name, _ := EffectiveProvider(""); name != "none" {
		t.Errorf("without opencode on PATH: %q", name)
	}
}
