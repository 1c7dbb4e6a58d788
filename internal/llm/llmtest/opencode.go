package llmtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The OpenCode provider and model that WriteOpenCodeConfig defines.
const (
	ProviderID = "fake"
	ModelID    = "fake-model"
	ModelRef   = ProviderID + "/" + ModelID // "fake/fake-model"
)

// OpenCodeConfig returns an OpenCode configuration (JSON) whose provider
// "fake" is an openai-compatible provider at s, with the single model
// "fake-model", which is also the default and the small model.
func (s *Server) OpenCodeConfig() []byte {
	cfg := map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"autoupdate":  false,
		"share":       "disabled",
		"model":       ModelRef,
		"small_model": ModelRef,
		"provider": map[string]any{ProviderID: map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "llmtest",
			"options": map[string]any{"baseURL": s.OpenAIURL(), "apiKey": "test"},
			"models":  map[string]any{ModelID: map[string]any{"name": "Fake model"}},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return b
}

// OpenCodeConfigDir is OpenCode's user configuration directory in the
// environment OpenCodeEnv(home) describes.
func OpenCodeConfigDir(home string) string {
	return filepath.Join(home, ".config", "opencode")
}

// OpenCodeDataDir is OpenCode's data directory (sessions database, logs,
// auth.json) in the environment OpenCodeEnv(home) describes.
func OpenCodeDataDir(home string) string {
	return filepath.Join(home, ".local", "share", "opencode")
}

// OpenCodeDB is the session database a plain `opencode` uses in the
// environment OpenCodeEnv(home) describes.
func OpenCodeDB(home string) string {
	return filepath.Join(OpenCodeDataDir(home), "opencode.db")
}

// WriteOpenCodeConfig writes s.OpenCodeConfig() as the user configuration
// (OpenCodeConfigDir(home)/opencode.json) and returns its path.
//
// It also stands in for the one-time install of @opencode-ai/plugin that
// OpenCode 1.18 runs in its config folder: while a plugin file is there
// (memoryd's is), every start waits for that install, which offline takes
// about two minutes of npm retries before failing. An empty node_modules
// and a package-lock.json naming the package tell OpenCode it is done; the
// plugins used in tests import nothing.
func WriteOpenCodeConfig(t testing.TB, home string, s *Server) string {
	t.Helper()
	dir := OpenCodeConfigDir(home)
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatalf("llmtest: %v", err)
	}
	lock := `{"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "package-lock.json"), []byte(lock), 0o644); err != nil {
		t.Fatalf("llmtest: %v", err)
	}
	path := filepath.Join(dir, "opencode.json")
	if err := os.WriteFile(path, s.OpenCodeConfig(), 0o644); err != nil {
		t.Fatalf("llmtest: %v", err)
	}
	return path
}

// OpenCodeEnv returns a complete environment for running `opencode` in
// isolation and offline: HOME and the XDG directories under home, PATH and
// TMPDIR from the test process, and no variables of the developer's own
// (no API keys, no OPENCODE_* settings). It also sets:
//
//   - OPENCODE_DISABLE_MODELS_FETCH=1: no models.dev catalogue download
//     (OpenCode uses the catalogue snapshot it bundles; point
//     OPENCODE_MODELS_PATH at a models.dev-style JSON file to replace it);
//   - OPENCODE_DISABLE_AUTOUPDATE=1, OPENCODE_DISABLE_SHARE=1;
//   - OPENCODE_DISABLE_DEFAULT_PLUGINS=1, OPENCODE_DISABLE_LSP_DOWNLOAD=1,
//     OPENCODE_DISABLE_CLAUDE_CODE=1, OPENCODE_DISABLE_EXTERNAL_SKILLS=1:
//     nothing else is downloaded or read from outside home;
//   - npm_config_registry=http://127.0.0.1:9/: OpenCode installs
//     @opencode-ai/plugin into its config directories in the background;
//     with an unreachable registry that fails at once, harmlessly.
//
// Append to the result to add or override variables (the last value of a
// duplicated key wins in os/exec).
func OpenCodeEnv(home string) []string {
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"PATH=" + os.Getenv("PATH"),
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS=1",
		"npm_config_registry=http://127.0.0.1:9/",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	return env
}
