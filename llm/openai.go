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

const defaultOpenAIBase = "https://api.openai.com/v1"

// openAI speaks OpenAI-compatible chat completions.
type openAI struct {
	http     *httpClient
	endpoint string
	// prefix is stripped from model names: "openai/" when talking to
	// api.openai.com, "" for any other server (see the package doc).
	prefix string
}

func newOpenAI(opts Options, log *slog.Logger) (*openAI, error) {
	base := opts.BaseURL
	if base == "" {
		base = defaultOpenAIBase
	}
	base, u, err := parseBase(base)
	if err != nil {
		return nil, err
	}
	p := &openAI{http: newHTTPClient(opts, log), endpoint: base + "/chat/completions"}
	if u.Hostname() == "api.openai.com" {
		p.prefix = "openai/"
	}
	return p, nil
}

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openAIRequest struct {
	Model          string          `json:"model"`
	Messages       []openAIMessage `json:"messages"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format,omitempty"`
}

type openAIAnswer struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal string  `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// Complete implements Completer.
func (p *openAI) Complete(ctx context.Context, req Request) (Response, error) {
	if err := req.check(); err != nil {
		return Response{}, err
	}
	model := req.Model
	if p.prefix != "" {
		model = strings.TrimPrefix(model, p.prefix)
	}
	body := openAIRequest{Model: model}
	if req.System != "" {
		body.Messages = append(body.Messages, openAIMessage{Role: "system", Content: req.System})
	}
	body.Messages = append(body.Messages, openAIMessage{Role: "user", Content: req.Prompt})
	if req.JSON {
		body.ResponseFormat = &struct {
			Type string `json:"type"`
		}{Type: "json_object"}
	}
	header := http.Header{}
	if p.http.apiKey != "" {
		header.Set("Authorization", "Bearer "+p.http.apiKey)
	}
	return p.http.complete(ctx, req, model, p.endpoint, header, body, parseOpenAI)
}

func parseOpenAI(data []byte) (Response, error) {
	var a openAIAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return Response{}, fmt.Errorf("decode answer: %w", err)
	}
	if len(a.Choices) == 0 {
		return Response{}, errors.New("answer has no choices")
	}
	c := a.Choices[0]
	if c.Message.Content == nil || *c.Message.Content == "" {
		if c.Message.Refusal != "" {
			return Response{}, fmt.Errorf("model refused: %s", c.Message.Refusal)
		}
		return Response{}, fmt.Errorf("empty answer (finish_reason %q)", c.FinishReason)
	}
	return Response{
		Text:         *c.Message.Content,
		InputTokens:  a.Usage.PromptTokens,
		OutputTokens: a.Usage.CompletionTokens,
	}, nil
}
