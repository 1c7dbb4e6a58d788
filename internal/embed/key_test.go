package embed

import "testing"

// TestKey: llm.api_key goes only to the openai provider's own host.
func TestKey(t *testing.T) {
	for _, c := range []struct {
		base, key, provider, llmBase, want string
	}{
		{"https://api.openai.com/v1", "", "openai", "", "llm"},
		{"https://api.openai.com/v1", "own", "openai", "", "own"},
		{"http://localhost:11434/v1", "", "openai", "", ""},
		{"https://api.openai.com/v1", "", "anthropic", "", ""},
		{"https://proxy.example/v1", "", "openai", "https://proxy.example/llm", "llm"},
		{"http://proxy.example/v1", "", "openai", "https://proxy.example/llm", ""},
	} {
		if got := Key(c.base, c.key, c.provider, c.llmBase, "llm"); got != c.want {
			t.Errorf("%+v: %q", c, got)
		}
	}
}
