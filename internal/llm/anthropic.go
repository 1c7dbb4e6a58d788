package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
)

const (
	defaultAnthropicBase = "https://api.anthropic.com"
	anthropicVersion     = "2023-06-01"
	// anthropicMaxTokens bounds the answer; the messages API requires a
	// bound, and a compaction plan of a large store can be long.
	anthropicMaxTokens = 8192
)

// anthropic speaks the Anthropic messages API.
type anthropic struct{ httpAPI }

func newAnthropic(opts Options, log *slog.Logger) (*anthropic, error) {
	a, err := newHTTPAPI(opts, log, defaultAnthropicBase, "api.anthropic.com", "anthropic")
	if err != nil {
		return nil, err
	}
	a.endpoint = strings.TrimSuffix(a.endpoint, "/v1") + "/v1/messages"
	return &anthropic{a}, nil
}

type anthropicRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	System    string `json:"system,omitempty"`
	Messages  []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

type anthropicAnswer struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      struct {
		InputTokens              tokenCount `json:"input_tokens"`
		OutputTokens             tokenCount `json:"output_tokens"`
		CacheCreationInputTokens tokenCount `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     tokenCount `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// Complete implements Completer. JSON mode is an instruction in the system
// prompt: the messages API has no native JSON mode.
func (p *anthropic) Complete(ctx context.Context, req Request) (Response, error) {
	return p.complete(ctx, req, p.build, parseAnthropic)
}

// build is the buildFunc of the messages API.
func (p *anthropic) build(req Request, model string) (any, http.Header) {
	body := anthropicRequest{
		Model:     model,
		MaxTokens: anthropicMaxTokens,
		System:    withJSONInstruction(req.System, req.JSON),
	}
	body.Messages = append(body.Messages, struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}{"user", req.Prompt})
	header := http.Header{}
	header.Set("anthropic-version", anthropicVersion)
	if p.http.apiKey != "" {
		header.Set("x-api-key", p.http.apiKey)
	}
	return body, header
}

func parseAnthropic(data []byte) (Response, error) {
	var a anthropicAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return Response{}, fmt.Errorf("decode answer: %w", err)
	}
	var text strings.Builder
	for _, c := range a.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	u := a.Usage
	if text.Len() == 0 {
		usage := Response{InputTokens: sumTokens(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens), OutputTokens: sumTokens(u.OutputTokens)}
		if a.StopReason == "" {
			return usage, errors.New("empty answer")
		}
		return usage, fmt.Errorf("empty answer (stop_reason %q)", a.StopReason)
	}
	return Response{
		Text:         text.String(),
		InputTokens:  sumTokens(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens),
		OutputTokens: sumTokens(u.OutputTokens),
	}, nil
}
