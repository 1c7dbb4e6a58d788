package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// OpenCodeDefaultModel returns the model a user's OpenCode would pick for a
// small task: its small_model, else its model, from the configuration
// OpenCode itself resolves (`opencode debug config`, every config file and
// OPENCODE_CONFIG* variable of env taken into account). "" means OpenCode
// has neither set. bin "" means "opencode" on PATH.
func OpenCodeDefaultModel(ctx context.Context, bin string, env []string) (string, error) {
	out, err := runOpenCode(ctx, bin, env, "debug", "config", "--pure")
	if err != nil {
		return "", err
	}
	var cfg struct {
		SmallModel string `json:"small_model"`
		Model      string `json:"model"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		return "", fmt.Errorf("read opencode's configuration: %w", err)
	}
	if cfg.SmallModel != "" {
		return cfg.SmallModel, nil
	}
	return cfg.Model, nil
}

// Models lists the models the provider offers, without a paid call: `opencode
// models` for opencode, GET /models for the HTTP providers.
func Models(ctx context.Context, opts Options) ([]string, error) {
	switch opts.Provider {
	case "opencode":
		out, err := runOpenCode(ctx, opts.OpenCodeBin, opts.Env, "models")
		if err != nil {
			return nil, err
		}
		var list []string
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); strings.Contains(l, "/") && !strings.ContainsAny(l, " \t") {
				list = append(list, l)
			}
		}
		return list, nil
	case "openai", "anthropic":
		return httpModels(ctx, opts)
	}
	return nil, fmt.Errorf("provider %q lists no models", opts.Provider)
}

// httpModels asks an HTTP provider's /models endpoint (free) and returns the
// ids as "provider/id", the form llm.Request.Model takes.
func httpModels(ctx context.Context, opts Options) ([]string, error) {
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL(opts.Provider)
	}
	url := strings.TrimRight(base, "/") + "/models"
	if opts.Provider == "anthropic" {
		url = strings.TrimRight(base, "/") + "/v1/models"
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if opts.APIKey != "" {
		if opts.Provider == "anthropic" {
			req.Header.Set("x-api-key", opts.APIKey)
			req.Header.Set("anthropic-version", "2023-06-01")
		} else {
			req.Header.Set("Authorization", "Bearer "+opts.APIKey)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	list := make([]string, 0, len(body.Data))
	for _, m := range body.Data {
		list = append(list, opts.Provider+"/"+m.ID)
	}
	return list, nil
}

// runOpenCode runs one opencode subcommand with env and returns its stdout.
func runOpenCode(ctx context.Context, bin string, env []string, args ...string) ([]byte, error) {
	if bin == "" {
		bin = "opencode"
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	if env != nil {
		cmd.Env = env
	}
	// The child and whatever it starts die with memoryd: its own process
	// group, killed whole on time-out or cancel (and, on Linux, a
	// parent-death signal when memoryd is killed outright); Output waits for
	// it, at most a second past the kill.
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("opencode is not on PATH: %w", err)
		}
		return nil, fmt.Errorf("opencode %s: %v %s", strings.Join(args, " "), err, clipLine(msg))
	}
	return out, nil
}

func clipLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
