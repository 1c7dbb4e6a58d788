// Package embedtest is a fake OpenAI-compatible embeddings server on
// 127.0.0.1 for tests: POST /v1/embeddings answers each input with the
// vector Server.Vector gives it, and the test can make it slow, break its
// answers or count what it was asked.
package embedtest

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a fake embeddings endpoint. Set its fields before the calls
// they should affect; they are read under its lock.
type Server struct {
	// URL is the base URL to configure, "http://127.0.0.1:PORT/v1".
	URL string

	srv *httptest.Server
	mu  sync.Mutex
	// vector answers one input; nil means Hashed(16).
	vector func(text string) []float32
	delay  time.Duration // before each answer
	broken string        // answered instead of JSON when not ""
	tokens int           // usage.total_tokens reported, 0 for none
	inputs []string      // every input asked for, in order
	calls  int
}

// New starts a server, closed when the test ends.
func New(t testing.TB) *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.srv.Close)
	return s
}

// Close stops the server: calls after it find nothing listening.
func (s *Server) Close() { s.srv.Close() }

// SetVector sets how an input becomes a vector.
func (s *Server) SetVector(fn func(text string) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vector = fn
}

// SetDelay makes every answer wait d.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// SetBroken makes every answer body be text, with status 200.
func (s *Server) SetBroken(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.broken = text
}

// SetTokens makes answers report n tokens (0: report none).
func (s *Server) SetTokens(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = n
}

// Inputs returns every input asked for so far.
func (s *Server) Inputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.inputs...)
}

// Calls returns how many requests were answered or are being answered.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.calls++
	s.inputs = append(s.inputs, req.Input...)
	vector, delay, broken, tokens := s.vector, s.delay, s.broken, s.tokens
	s.mu.Unlock()
	if vector == nil {
		vector = func(text string) []float32 { return Hashed(text, 16) }
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if broken != "" {
		w.Write([]byte(broken))
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string         `json:"object"`
		Data   []item         `json:"data"`
		Model  string         `json:"model"`
		Usage  map[string]int `json:"usage,omitempty"`
	}{Object: "list", Model: req.Model}
	for i, in := range req.Input {
		out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: vector(in)})
	}
	if tokens > 0 {
		out.Usage = map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}
	}
	json.NewEncoder(w).Encode(out)
}

// Hashed is a vector of dim dimensions made from the words of text, each
// word adding to one dimension chosen by its hash: texts sharing words are
// near, others far apart.
func Hashed(text string, dim int) []float32 {
	v := make([]float32, dim)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dim)]++
	}
	v[0] += 0.01 // never all zero
	return v
}

// Topics maps a text to a unit vector along the first topic whose marker
// word it contains (dimension i+1 for topics[i]), or along dimension 0
// when it has none: a way to make texts that share no word near.
func Topics(dim int, topics ...[]string) func(text string) []float32 {
	return func(text string) []float32 {
		v := make([]float32, dim)
		low := strings.ToLower(text)
		for i, markers := range topics {
			for _, m := range markers {
				if strings.Contains(low, m) {
					v[i+1] = 1
					return v
				}
			}
		}
		v[0] = 1
		return v
	}
}
