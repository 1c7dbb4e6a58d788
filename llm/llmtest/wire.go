package llmtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// titlePrompt starts the system prompt of OpenCode's title generator.
const titlePrompt = "You are a title generator"

// record parses a request body into a Recorded.
func record(api string, r *http.Request, raw []byte) Recorded {
	rec := Recorded{
		API: api, Kind: "prompt", Method: r.Method, Path: r.URL.Path,
		Header: r.Header.Clone(), Raw: raw, Task: r.Header.Get("X-Memoryd-Task"),
	}
	if json.Unmarshal(raw, &rec.Body) != nil {
		rec.Body = nil
		return rec
	}
	rec.Model, _ = rec.Body["model"].(string)
	rec.Stream, _ = rec.Body["stream"].(bool)
	var system, user []string
	if api == "anthropic" {
		if s := text(rec.Body["system"]); s != "" {
			system = append(system, s)
		}
	}
	msgs, _ := rec.Body["messages"].([]any)
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		switch m["role"] {
		case "system", "developer":
			system = append(system, text(m["content"]))
		case "user":
			user = append(user, text(m["content"]))
		}
	}
	rec.System = strings.Join(system, "\n")
	rec.User = strings.Join(user, "\n")
	if strings.HasPrefix(rec.System, titlePrompt) {
		rec.Kind = "title"
	}
	return rec
}

// text flattens message content: a string, or a list of parts whose "text"
// fields are joined by "\n".
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, p := range v {
			if p, ok := p.(map[string]any); ok {
				if s, ok := p["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, api string, reply Reply) {
	if reply.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(cmp.Or(reply.Status, http.StatusOK))
		fmt.Fprint(w, reply.Body)
		return
	}
	msg := fmt.Sprintf("llmtest: status %d", reply.Status)
	if api == "anthropic" {
		writeJSON(w, reply.Status, map[string]any{"type": "error",
			"error": map[string]any{"type": "api_error", "message": msg}})
		return
	}
	writeJSON(w, reply.Status, map[string]any{"error": map[string]any{
		"message": msg, "type": "server_error", "code": nil}})
}

func answerOpenAI(w http.ResponseWriter, model, text string, in, out int) {
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": 1, "model": model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": text}}},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
}

// sse writes server-sent events and flushes after each.
type sse struct{ w http.ResponseWriter }

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (s sse) send(event string, v any) {
	if event != "" {
		fmt.Fprintf(s.w, "event: %s\n", event)
	}
	b, _ := json.Marshal(v)
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// chunks splits text in two so that clients must join deltas.
func chunks(text string) []string {
	if len(text) < 2 {
		return []string{text}
	}
	i := len(text) / 2
	for i < len(text) && (text[i]&0xC0) == 0x80 { // not inside a UTF-8 sequence
		i++
	}
	return []string{text[:i], text[i:]}
}

func streamOpenAI(w http.ResponseWriter, model, text string, in, out int) {
	s := newSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": 1,
			"model": model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	s.send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, c := range chunks(text) {
		s.send("", chunk(map[string]any{"content": c}, nil))
	}
	s.send("", chunk(map[string]any{}, "stop"))
	s.send("", map[string]any{"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": 1,
		"model": model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func answerAnthropic(w http.ResponseWriter, model, text string, in, out int) {
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "msg_llmtest", "type": "message", "role": "assistant", "model": model,
		"content":     []any{map[string]any{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": out},
	})
}

func streamAnthropic(w http.ResponseWriter, model, text string, in, out int) {
	s := newSSE(w)
	s.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_llmtest", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": in, "output_tokens": 1}}})
	s.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	for _, c := range chunks(text) {
		s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": c}})
	}
	s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": out}})
	s.send("message_stop", map[string]any{"type": "message_stop"})
}
