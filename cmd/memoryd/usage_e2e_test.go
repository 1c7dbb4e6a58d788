package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestBudgetCountsAbsurdUsage: a model that reports its usage as strings,
// fractions, negatives, huge numbers or next to nothing is counted for
// what went over the wire: every extraction with no readable count adds at
// least a token per six bytes of the request it sent, and no reply lowers
// the day's count.
func TestBudgetCountsAbsurdUsage(t *testing.T) {
	w := newWorld(t)
	usages := []string{
		`{"prompt_tokens": "1200", "completion_tokens": "34"}`,
		`{"prompt_tokens": 1200.5, "completion_tokens": 34}`,
		`{"prompt_tokens": -100000000, "completion_tokens": 1}`,
		`{"prompt_tokens": 1e300, "completion_tokens": 34}`,
		`{"prompt_tokens": 9223372036854775807, "completion_tokens": 9223372036854775807}`,
		`{"prompt_tokens": 0, "completion_tokens": 1}`,
		`{"prompt_tokens": "lots", "completion_tokens": null}`,
	}
	var mu sync.Mutex
	var bodies []int
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		i := len(bodies)
		bodies = append(bodies, len(b))
		mu.Unlock()
		name := fmt.Sprintf("fact-%d", i+1)
		text, _ := json.Marshal(answerMemories(memJSON("create", "user", name, "Fact number "+name, "The user stated "+name+" and asked to keep it."))(""))
		fmt.Fprintf(rw, `{"id":"x","object":"chat.completion","model":"test-model","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],"usage":%s}`,
			text, usages[i%len(usages)])
	}))
	defer srv.Close()
	w.env = append(w.env, "MEMORY_LLM_PROVIDER=openai", "MEMORY_LLM_BASE_URL="+srv.URL+"/v1", "MEMORY_COMPACT_ENABLED=0",
		"MEMORY_EXTRACT_MODEL=openai/test-model")
	cw := &costWorld{world: w, file: filepath.Join(w.home, ".claude", "projects", "-home-ana-proj", "5d6e7f80-1111-4222-8333-444455556666.jsonl")}
	last := 0
	for i, usage := range usages {
		cw.turn(fmt.Sprintf("Remember that the build step %d takes a while.", i), "Noted.")
		if out, code := w.runCmd(nil, "extract"); code != 0 || !strings.Contains(out, "created") {
			t.Fatalf("usage %s: extract exit %d\n%s", usage, code, out)
		}
		out, _, _ := w.runCmd2(nil, "status", "--json")
		today := statusJSON(t, out).Tokens.Today
		mu.Lock()
		sent := bodies[len(bodies)-1]
		mu.Unlock()
		// The first report is a count (in strings): it is taken. The others
		// are no count: the call is estimated from the bytes sent.
		if want := map[bool]int{true: 1234, false: sent / 6}[i == 0]; today-last < want {
			t.Errorf("usage %s: the call added %d tokens to the day's %d, want at least %d (it sent %d bytes)", usage, today-last, last, want, sent)
		}
		last = max(last, today)
	}
}
