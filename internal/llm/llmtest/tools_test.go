package llmtest_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// The tool calls of each API, checked by joining the streamed deltas as a
// client does. The real clients (Claude Code, Codex, OpenCode) are driven
// by the end-to-end tests in cmd/memoryd.

func TestAnthropicToolCallStream(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Call("mcp__memoryd__memory_search", map[string]any{"query": "tabs"})
	})
	resp := post(t, srv.URL+"/v1/messages?beta=true", map[string]any{"model": "m", "stream": true, "max_tokens": 5,
		"tools": []any{map[string]any{"name": "mcp__memoryd__memory_search", "input_schema": map[string]any{}}},
		"messages": []any{
			map[string]any{"role": "user", "content": "q"},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "x",
				"content": []any{map[string]any{"type": "text", "text": "earlier result"}}}}},
		}}, nil)
	var name, args, stop string
	for _, d := range readSSE(t, resp.Body) {
		var ev struct {
			Type         string
			ContentBlock struct{ Type, Name string } `json:"content_block"`
			Delta        struct {
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			}
		}
		json.Unmarshal([]byte(d), &ev)
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				name = ev.ContentBlock.Name
			}
		case "content_block_delta":
			args += ev.Delta.PartialJSON
		case "message_delta":
			stop = ev.Delta.StopReason
		}
	}
	if name != "mcp__memoryd__memory_search" || args != `{"query":"tabs"}` || stop != "tool_use" {
		t.Fatalf("tool_use %q %q, stop %q", name, args, stop)
	}
	r := srv.Requests()[0]
	if !r.HasTool("mcp__memoryd__memory_search") || !slices.Equal(r.ToolResults, []string{"earlier result"}) {
		t.Errorf("recorded tools %v results %q", r.Tools, r.ToolResults)
	}
}

func TestResponsesStream(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		if len(r.ToolResults) == 0 {
			return llmtest.Call("memory_search", map[string]any{"query": "tabs"}).InNamespace("mcp__memoryd")
		}
		return llmtest.Text("done: " + r.ToolResults[0])
	})
	body := map[string]any{"model": "m", "stream": true, "instructions": "sys",
		"tools": []any{
			map[string]any{"type": "function", "name": "exec_command"},
			map[string]any{"type": "namespace", "name": "mcp__memoryd", "tools": []any{map[string]any{"name": "memory_search"}}},
		},
		"input": []any{
			map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "dev"}}},
			map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "q"}}},
		}}
	events := func() (types []string, items []map[string]any, text string) {
		resp := post(t, srv.URL+"/v1/responses", body, nil)
		for _, d := range readSSE(t, resp.Body) {
			var ev struct {
				Type  string
				Item  map[string]any
				Delta string
			}
			json.Unmarshal([]byte(d), &ev)
			types = append(types, ev.Type)
			switch ev.Type {
			case "response.output_item.done":
				items = append(items, ev.Item)
			case "response.output_text.delta":
				text += ev.Delta
			}
		}
		return
	}
	types, items, _ := events()
	if types[0] != "response.created" || types[len(types)-1] != "response.completed" || len(items) != 1 {
		t.Fatalf("events %v", types)
	}
	if it := items[0]; it["type"] != "function_call" || it["name"] != "memory_search" || it["namespace"] != "mcp__memoryd" ||
		it["arguments"] != `{"query":"tabs"}` || it["call_id"] == "" {
		t.Fatalf("item %v", it)
	}
	r := srv.Requests()[0]
	if r.API != "responses" || r.System != "sys\ndev" || r.User != "q" ||
		!slices.Equal(r.Tools, []string{"exec_command", "mcp__memoryd__memory_search"}) {
		t.Fatalf("recorded %+v", r)
	}

	body["input"] = append(body["input"].([]any), items[0],
		map[string]any{"type": "function_call_output", "call_id": items[0]["call_id"], "output": "a fact"})
	if _, _, text := events(); text != "done: a fact" {
		t.Fatalf("answer %q", text)
	}
}

func TestOpenAIToolCall(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Call("memoryd_memory_search", map[string]any{"query": "x"})
	})
	msgs := []any{map[string]any{"role": "user", "content": "q"}, map[string]any{"role": "tool", "tool_call_id": "c", "content": "res"}}
	resp := post(t, srv.OpenAIURL()+"/chat/completions", map[string]any{"model": "m", "messages": msgs,
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "memoryd_memory_search"}}}}, nil)
	var got struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				ToolCalls []struct {
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
		}
	}
	json.NewDecoder(resp.Body).Decode(&got)
	if c := got.Choices[0]; c.FinishReason != "tool_calls" || c.Message.ToolCalls[0].Function.Name != "memoryd_memory_search" {
		t.Fatalf("answer %+v", got)
	}
	resp = post(t, srv.OpenAIURL()+"/chat/completions", map[string]any{"model": "m", "stream": true, "messages": msgs}, nil)
	var args strings.Builder
	for _, d := range readSSE(t, resp.Body) {
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct{ Function struct{ Arguments string } } `json:"tool_calls"`
				}
			}
		}
		json.Unmarshal([]byte(d), &c)
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				args.WriteString(tc.Function.Arguments)
			}
		}
	}
	if args.String() != `{"query":"x"}` {
		t.Fatalf("streamed arguments %q", args.String())
	}
	if r := srv.Requests()[0]; !r.HasTool("memoryd_memory_search") || !slices.Equal(r.ToolResults, []string{"res"}) {
		t.Fatalf("recorded %v %v", r.Tools, r.ToolResults)
	}
}
