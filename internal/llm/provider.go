package llm

import "os/exec"

// EffectiveProvider is the provider in effect when llm.provider is
// configured (the name as configured, "" when not set), and why, in the
// user's words: the one set, else opencode when it is on PATH, else none.
func EffectiveProvider(configured string) (name, because string) {
	if configured != "" {
		return configured, "set in llm.provider"
	}
	if path, err := exec.LookPath("opencode"); err == nil {
		return "opencode", "llm.provider is not set and opencode is on PATH (" + path + ")"
	}
	return "none", "llm.provider is not set and opencode is not on PATH: compaction and extraction are off"
}
