package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
)

const defaultOpenAIBase = "https://api.openai.com/v1"

// openAI speaks OpenAI-compatible chat completions.
type openAI struct{ httpAPI }

func newOpenAI(opts Options, log *slog.Logger) (*openAI, error) {
	a, err := newHTTPAPI(opts, log, defaultOpenAIBase, "api.openai.com", "openai")
	if err != nil {
		return nil, err
	}
	a.endpoint += "/chat/completions"
	return &openAI{a}, nil
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
		PromptTokens     tokenCount `json:"prompt_tokens"`
		CompletionTokens tokenCount `json:"completion_tokens"`
	} `json:"usage"`
}

// Complete implements Completer.
func (p *openAI) Complete(ctx context.Context, req Request) (Response, error) {
	return p.complete(ctx, req, p.build, parseOpenAI)
}

// build is the buildFunc of the chat completions API.
func (p *openAI) build(req Request, model string) (any, http.Header) {
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
	return body, header
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
		return Response{InputTokens: sumTokens(a.Usage.PromptTokens), OutputTokens: sumTokens(a.Usage.CompletionTokens)},
			fmt.Errorf("empty answer (finish_reason %q)", c.FinishReason)
	}
	return Response{
		Text:         *c.Message.Content,
		InputTokens:  sumTokens(a.Usage.PromptTokens),
		OutputTokens: sumTokens(a.Usage.CompletionTokens),
	}, nil
}
