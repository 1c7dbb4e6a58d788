package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/atomicfile"
)

// agentPrompt replaces OpenCode's coding-agent prompt for the daemon's
// sessions; the request's own system prompt follows it.
const agentPrompt = "You are a careful assistant that maintains a store of long-term memory notes. " +
	"You have no tools. Follow the instructions below exactly and answer only in the format they ask for."

// configContent is OPENCODE_CONFIG_CONTENT for the daemon's server: a
// tool-less primary agent (every tool off, every permission denied) and no
// update checks or sharing. It is merged over the user's own configuration.
func configContent() string {
	cfg := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"snapshot":   false,
		"agent": map[string]any{
			agentName: map[string]any{
				"mode":        "primary",
				"description": "memoryd background tasks (no tools)",
				"prompt":      agentPrompt,
				"tools":       map[string]bool{"*": false},
				"permission":  map[string]string{"*": "deny"},
			},
		},
	}
	b, _ := json.Marshal(cfg)
	return string(b)
}

// serverEnv is base plus the variables that isolate and configure the
// daemon's server. Inherited values of those variables are dropped, as is
// OPENCODE_DISABLE_PROJECT_CONFIG (the task header rides on project config).
func serverEnv(base []string, dir string) []string {
	set := []string{
		"OPENCODE_DB=" + filepath.Join(dir, "opencode.db"),
		"OPENCODE_CONFIG_CONTENT=" + configContent(),
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_AUTOCOMPACT=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
	}
	drop := map[string]bool{
		"OPENCODE_DISABLE_PROJECT_CONFIG": true,
		"OPENCODE_SERVER_USERNAME":        true,
		"OPENCODE_SERVER_PASSWORD":        true,
	}
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
	}
	env := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			env = append(env, kv)
		}
	}
	return append(env, set...)
}

// workDir returns the working directory for (task, provider/model),
// creating it and its project opencode.json on first use. The project
// config sets the X-Memoryd-Task header on that model, so every upstream
// request of a session created in this directory carries it.
func (p *openCode) workDir(task, providerID, modelID string) (string, error) {
	sum := sha256.Sum256([]byte(providerID + "/" + modelID))
	dir := filepath.Join(p.dir, "work", task+"-"+hex.EncodeToString(sum[:6]))
	p.mu.Lock()
	done := p.workDirs[dir]
	p.mu.Unlock()
	if done {
		return dir, nil
	}
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{providerID: map[string]any{
			"models": map[string]any{modelID: map[string]any{
				"headers": map[string]string{taskHeader: task},
			}},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("opencode work dir: %w", err)
	}
	if _, err := atomicfile.Write(dir, "opencode.json", append(b, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("opencode work dir: %w", err)
	}
	p.mu.Lock()
	p.workDirs[dir] = true
	p.mu.Unlock()
	return dir, nil
}

type promptModel struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type promptBody struct {
	Agent  string      `json:"agent"`
	Model  promptModel `json:"model"`
	System string      `json:"system,omitempty"`
	Parts  []textPart  `json:"parts"`
}

// createSession creates a session in dir. The title spares a
// title-generation call; the permission rules repeat the agent's.
func (s *ocServer) createSession(ctx context.Context, dir, task string) (string, error) {
	body := map[string]any{
		"title":      "memoryd " + task,
		"permission": []map[string]string{{"permission": "*", "pattern": "*", "action": "deny"}},
	}
	var ses struct {
		ID string `json:"id"`
	}
	if err := s.call(ctx, "POST", "/session", dir, body, &ses); err != nil {
		return "", fmt.Errorf("create opencode session: %w", err)
	}
	if ses.ID == "" {
		return "", fmt.Errorf("create opencode session: no id in answer")
	}
	return ses.ID, nil
}

// checkModel fails unless OpenCode, as configured by the user, knows the
// model. It asks once per server (GET /config/providers, in a directory
// without memoryd's header config, which would otherwise define the model)
// and answers later calls from memory.
func (s *ocServer) checkModel(ctx context.Context, baseDir, providerID, modelID string) error {
	s.modelsMu.Lock()
	defer s.modelsMu.Unlock()
	if s.models == nil {
		var answer struct {
			Providers []struct {
				ID     string                     `json:"id"`
				Models map[string]json.RawMessage `json:"models"`
			} `json:"providers"`
		}
		if err := s.call(ctx, "GET", "/config/providers", baseDir, nil, &answer); err != nil {
			return fmt.Errorf("list opencode providers: %w", err)
		}
		s.models = map[string]map[string]bool{}
		for _, p := range answer.Providers {
			s.models[p.ID] = map[string]bool{}
			for id := range p.Models {
				s.models[p.ID][id] = true
			}
		}
	}
	models, ok := s.models[providerID]
	if !ok {
		ids := slices.Sorted(maps.Keys(s.models))
		return fmt.Errorf("opencode has no provider %q with credentials (it has: %s)", providerID, strings.Join(ids, ", "))
	}
	if !models[modelID] {
		return fmt.Errorf("opencode provider %q has no model %q", providerID, modelID)
	}
	return nil
}

// promptAnswer is the part of OpenCode's message answer memoryd reads.
type promptAnswer struct {
	Info struct {
		Error *struct {
			Name string `json:"name"`
			Data struct {
				Message    string `json:"message"`
				StatusCode int    `json:"statusCode"`
			} `json:"data"`
		} `json:"error"`
		Tokens struct {
			Input     tokenCount `json:"input"`
			Output    tokenCount `json:"output"`
			Reasoning tokenCount `json:"reasoning"`
			Cache     struct {
				Read  tokenCount `json:"read"`
				Write tokenCount `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
		Finish string `json:"finish"`
	} `json:"info"`
	Parts []struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		Synthetic bool   `json:"synthetic"`
		Ignored   bool   `json:"ignored"`
	} `json:"parts"`
}

// prompt sends the message and waits for the assistant's reply.
func (s *ocServer) prompt(ctx context.Context, dir, sid string, body promptBody) (Response, error) {
	var a promptAnswer
	if err := s.call(ctx, "POST", "/session/"+sid+"/message", dir, body, &a); err != nil {
		return Response{}, fmt.Errorf("opencode prompt: %w", err)
	}
	if e := a.Info.Error; e != nil {
		msg := e.Data.Message
		if len(msg) > excerptLen {
			msg = msg[:excerptLen] + "…"
		}
		if e.Data.StatusCode != 0 {
			return Response{}, fmt.Errorf("opencode %s: %w", e.Name, &StatusError{Status: e.Data.StatusCode, Body: msg})
		}
		return Response{}, fmt.Errorf("opencode %s: %s", e.Name, msg)
	}
	var text strings.Builder
	for _, part := range a.Parts {
		if part.Type == "text" && !part.Synthetic && !part.Ignored {
			text.WriteString(part.Text)
		}
	}
	t := a.Info.Tokens
	if text.Len() == 0 {
		return Response{InputTokens: sumTokens(t.Input, t.Cache.Read, t.Cache.Write), OutputTokens: sumTokens(t.Output, t.Reasoning)},
			billed{fmt.Errorf("opencode: empty answer (finish %q)", a.Info.Finish)}
	}
	return Response{
		Text:         text.String(),
		InputTokens:  sumTokens(t.Input, t.Cache.Read, t.Cache.Write),
		OutputTokens: sumTokens(t.Output, t.Reasoning),
	}, nil
}
