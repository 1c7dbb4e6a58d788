package llmtest

import (
	"net/http"
	"strings"
)

// The OpenAI Responses API (POST /v1/responses), which Codex speaks: a
// request's conversation is in "input", the answer is a response object
// whose "output" holds items — a message, or a function_call — sent as
// server-sent events ending with response.completed.

// responseItems are the answer's output items, as they are when done.
func (a answer) responseItems() []map[string]any {
	var items []map[string]any
	if a.text != "" || a.tool == nil {
		items = append(items, map[string]any{"id": "msg_llmtest", "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}}})
	}
	if a.tool != nil {
		item := map[string]any{"id": "fc_llmtest", "type": "function_call", "status": "completed",
			"call_id": a.callID(), "name": a.tool.Name, "arguments": a.args()}
		if a.tool.Namespace != "" {
			item["namespace"] = a.tool.Namespace
		}
		items = append(items, item)
	}
	return items
}

// response is the response object; without items, an empty in-progress one.
func (a answer) response() map[string]any {
	return a.responseWith("completed", a.responseItems())
}

func (a answer) responseWith(status string, items []map[string]any) map[string]any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	r := map[string]any{"id": "resp_llmtest", "object": "response", "created_at": 1, "status": status,
		"model": a.model, "output": out}
	if status == "completed" {
		r["usage"] = map[string]any{"input_tokens": a.in, "output_tokens": a.out, "total_tokens": a.in + a.out,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	}
	return r
}

func streamResponses(w http.ResponseWriter, a answer) {
	s := newSSE(w)
	seq := 0
	send := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		s.send(typ, fields)
	}
	send("response.created", map[string]any{"response": a.responseWith("in_progress", nil)})
	items := a.responseItems()
	for i, item := range items {
		id := item["id"]
		switch item["type"] {
		case "message":
			send("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
				"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
			part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
			send("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part})
			for _, c := range chunks(a.text) {
				send("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": c})
			}
			send("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": a.text})
			part = map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}
			send("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part})
		case "function_call":
			added := map[string]any{}
			for k, v := range item {
				added[k] = v
			}
			added["status"], added["arguments"] = "in_progress", ""
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			for _, c := range chunks(a.args()) {
				send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": c})
			}
			send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": a.args()})
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	send("response.completed", map[string]any{"response": a.responseWith("completed", items)})
}

// toolNames lists the names of the tools a request offers (see
// Recorded.Tools); prefix is the enclosing namespace's name and "__".
func toolNames(v any, prefix string) []string {
	tools, _ := v.([]any)
	var names []string
	for _, t := range tools {
		t, _ := t.(map[string]any)
		name, _ := t["name"].(string)
		if fn, ok := t["function"].(map[string]any); ok && name == "" { // chat completions
			name, _ = fn["name"].(string)
		}
		if t["type"] == "namespace" {
			names = append(names, toolNames(t["tools"], prefix+name+"__")...)
			continue
		}
		if name != "" {
			names = append(names, prefix+name)
		}
	}
	return names
}

// toolResults returns the texts of the tool results in one conversation
// item: a chat "tool" message, the tool_result blocks of an Anthropic user
// message, or a Responses function_call_output item.
func toolResults(m map[string]any) []string {
	switch {
	case m["role"] == "tool":
		return []string{text(m["content"])}
	case m["type"] == "function_call_output":
		return []string{text(m["output"])}
	}
	blocks, _ := m["content"].([]any)
	var out []string
	for _, b := range blocks {
		if b, ok := b.(map[string]any); ok && b["type"] == "tool_result" {
			out = append(out, text(b["content"]))
		}
	}
	return out
}

// HasTool reports whether r offers a tool named name (see Recorded.Tools).
func (r Recorded) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// Carries reports whether s occurs anywhere in the request's body, for
// text whose place in a request varies with the client and its version.
func (r Recorded) Carries(s string) bool {
	return strings.Contains(string(r.Raw), s) || strings.Contains(r.System+r.User+strings.Join(r.ToolResults, ""), s)
}
