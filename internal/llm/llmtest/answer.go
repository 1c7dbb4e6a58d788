package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// ToolCall is a tool call the fake model makes. The agent that sent the
// request runs the tool and sends its result in its next request (see
// Recorded.ToolResults).
type ToolCall struct {
	// ID identifies the call; "" means "call_1".
	ID string
	// Name is the tool's name as the request offered it: for Claude Code
	// "mcp__memoryd__memory_search"; for Codex the plain name
	// ("memory_search") with Namespace set.
	Name string
	// Namespace is the Responses API namespace tool the tool belongs to
	// ("mcp__memoryd" for Codex's MCP server memoryd); other APIs ignore it.
	Namespace string
	// Args are the call's arguments, encoded as a JSON object.
	Args any
}

// Call answers with a call of the tool name with args (see ToolCall.Name).
func Call(name string, args any) Reply { return Reply{Tool: &ToolCall{Name: name, Args: args}} }

// InNamespace returns r with its tool call in the Responses API namespace
// ns; for Codex, Call("memory_search", …).InNamespace("mcp__memoryd").
func (r Reply) InNamespace(ns string) Reply {
	if r.Tool != nil {
		t := *r.Tool
		t.Namespace = ns
		r.Tool = &t
	}
	return r
}

// answer is a reply resolved for one request.
type answer struct {
	model   string
	text    string
	tool    *ToolCall
	in, out int
}

func (a answer) callID() string {
	if a.tool.ID != "" {
		return a.tool.ID
	}
	return "call_1"
}

// args is the tool call's arguments as a JSON text.
func (a answer) args() string {
	if a.tool.Args == nil {
		return "{}"
	}
	b, err := json.Marshal(a.tool.Args)
	if err != nil {
		panic(fmt.Sprintf("llmtest: tool arguments: %v", err))
	}
	return string(b)
}

func answerOpenAI(w http.ResponseWriter, a answer) {
	msg := map[string]any{"role": "assistant", "content": a.text}
	finish := "stop"
	if a.tool != nil {
		msg["tool_calls"] = []any{map[string]any{"id": a.callID(), "type": "function",
			"function": map[string]any{"name": a.tool.Name, "arguments": a.args()}}}
		finish = "tool_calls"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": 1, "model": a.model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
		"usage":   map[string]any{"prompt_tokens": a.in, "completion_tokens": a.out, "total_tokens": a.in + a.out},
	})
}

func streamOpenAI(w http.ResponseWriter, a answer) {
	s := newSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": 1,
			"model": a.model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	s.send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if a.text != "" || a.tool == nil {
		for _, c := range chunks(a.text) {
			s.send("", chunk(map[string]any{"content": c}, nil))
		}
	}
	finish := "stop"
	if a.tool != nil {
		s.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": a.callID(), "type": "function",
			"function": map[string]any{"name": a.tool.Name, "arguments": ""}}}}, nil))
		for _, c := range chunks(a.args()) {
			s.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": c}}}}, nil))
		}
		finish = "tool_calls"
	}
	s.send("", chunk(map[string]any{}, finish))
	s.send("", map[string]any{"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": 1,
		"model": a.model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": a.in, "completion_tokens": a.out, "total_tokens": a.in + a.out}})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// anthropicContent is the answer's content blocks.
func (a answer) anthropicContent() []any {
	var content []any
	if a.text != "" || a.tool == nil {
		content = append(content, map[string]any{"type": "text", "text": a.text})
	}
	if a.tool != nil {
		var input any = map[string]any{}
		json.Unmarshal([]byte(a.args()), &input)
		content = append(content, map[string]any{"type": "tool_use", "id": a.callID(), "name": a.tool.Name, "input": input})
	}
	return content
}

func (a answer) stopReason() string {
	if a.tool != nil {
		return "tool_use"
	}
	return "end_turn"
}

func answerAnthropic(w http.ResponseWriter, a answer) {
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "msg_llmtest", "type": "message", "role": "assistant", "model": a.model,
		"content":     a.anthropicContent(),
		"stop_reason": a.stopReason(), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": a.in, "output_tokens": a.out},
	})
}

func streamAnthropic(w http.ResponseWriter, a answer) {
	s := newSSE(w)
	s.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_llmtest", "type": "message", "role": "assistant", "model": a.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": a.in, "output_tokens": 1}}})
	for i, block := range a.anthropicContent() {
		block := block.(map[string]any)
		var deltas []map[string]any
		switch block["type"] {
		case "text":
			for _, c := range chunks(a.text) {
				deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
			}
			block = map[string]any{"type": "text", "text": ""}
		case "tool_use":
			for _, c := range chunks(a.args()) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": c})
			}
			block = map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}
		}
		s.send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": block})
		for _, d := range deltas {
			s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": a.stopReason(), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": a.out}})
	s.send("message_stop", map[string]any{"type": "message_stop"})
}
