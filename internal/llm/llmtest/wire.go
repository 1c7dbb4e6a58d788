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
	switch api {
	case "anthropic":
		if s := text(rec.Body["system"]); s != "" {
			system = append(system, s)
		}
	case "responses":
		if s := text(rec.Body["instructions"]); s != "" {
			system = append(system, s)
		}
	}
	msgs, _ := rec.Body["messages"].([]any)
	if api == "responses" {
		msgs, _ = rec.Body["input"].([]any)
	}
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		switch m["role"] {
		case "system", "developer":
			system = append(system, text(m["content"]))
		case "user":
			user = append(user, text(m["content"]))
		}
		rec.ToolResults = append(rec.ToolResults, toolResults(m)...)
	}
	rec.Tools = toolNames(rec.Body["tools"], "")
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
