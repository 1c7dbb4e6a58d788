package llmtest_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
	_ "modernc.org/sqlite"
)

func post(t *testing.T, url string, body any, header map[string]string) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestOpenAIPlain(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.JSON(map[string]int{"n": 1}).WithTokens(12, 3)
	})
	resp := post(t, srv.OpenAIURL()+"/chat/completions", map[string]any{
		"model": "m1",
		"messages": []any{
			map[string]any{"role": "system", "content": "be brief"},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hello"}}},
		},
	}, map[string]string{"X-Memoryd-Task": "extract"})
	var got struct {
		Choices []struct {
			Message struct{ Content string }
		}
		Usage struct{ PromptTokens, CompletionTokens int } `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || len(got.Choices) != 1 || got.Choices[0].Message.Content != `{"n":1}` {
		t.Fatalf("answer %d %+v", resp.StatusCode, got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	r := reqs[0]
	if r.API != "openai" || r.Kind != "prompt" || r.Model != "m1" || r.System != "be brief" || r.User != "hello" || r.Task != "extract" || r.Stream {
		t.Errorf("recorded %+v", r)
	}
}

// readSSE returns the data payloads of a server-sent event stream.
func readSSE(t *testing.T, body io.Reader) []string {
	t.Helper()
	var data []string
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	return data
}

func TestOpenAIStream(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text("héllo world").WithTokens(5, 2) })
	resp := post(t, srv.OpenAIURL()+"/chat/completions", map[string]any{
		"model": "m", "stream": true, "messages": []any{map[string]any{"role": "user", "content": "hi"}},
	}, nil)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	data := readSSE(t, resp.Body)
	if len(data) < 3 || data[len(data)-1] != "[DONE]" {
		t.Fatalf("stream %q", data)
	}
	var text strings.Builder
	var usage int
	for _, d := range data[:len(data)-1] {
		var c struct {
			Choices []struct{ Delta struct{ Content string } }
			Usage   *struct {
				PromptTokens int `json:"prompt_tokens"`
			}
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("chunk %q: %v", d, err)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
		}
		if c.Usage != nil {
			usage = c.Usage.PromptTokens
		}
	}
	if text.String() != "héllo world" || usage != 5 {
		t.Errorf("joined %q usage %d", text.String(), usage)
	}
	if !srv.Requests()[0].Stream {
		t.Error("stream not recorded")
	}
}

func TestAnthropic(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text("fine") })
	body := map[string]any{"model": "claude", "max_tokens": 10,
		"system":   []any{map[string]any{"type": "text", "text": "sys"}},
		"messages": []any{map[string]any{"role": "user", "content": "q"}}}
	resp := post(t, srv.URL+"/v1/messages", body, nil)
	var got struct{ Content []struct{ Text string } }
	json.NewDecoder(resp.Body).Decode(&got)
	if len(got.Content) != 1 || got.Content[0].Text != "fine" {
		t.Fatalf("answer %+v", got)
	}
	body["stream"] = true
	resp = post(t, srv.URL+"/v1/messages", body, nil)
	var text strings.Builder
	for _, d := range readSSE(t, resp.Body) {
		var ev struct {
			Type  string
			Delta struct{ Text string }
		}
		json.Unmarshal([]byte(d), &ev)
		if ev.Type == "content_block_delta" {
			text.WriteString(ev.Delta.Text)
		}
	}
	if text.String() != "fine" {
		t.Errorf("streamed %q", text.String())
	}
	r := srv.Requests()[0]
	if r.API != "anthropic" || r.System != "sys" || r.User != "q" {
		t.Errorf("recorded %+v", r)
	}
}

func TestErrorHeaderAndTitle(t *testing.T) {
	var calls atomic.Int32
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply {
		calls.Add(1)
		return llmtest.Error(429, "").WithHeader("Retry-After", "7")
	})
	resp := post(t, srv.OpenAIURL()+"/chat/completions", map[string]any{"model": "m",
		"messages": []any{map[string]any{"role": "user", "content": "x"}}}, nil)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(string(b), "llmtest: status 429") {
		t.Errorf("got %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	resp = post(t, srv.OpenAIURL()+"/chat/completions", map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "system", "content": "You are a title generator. You output ONLY a thread title."},
		map[string]any{"role": "user", "content": "x"}}}, nil)
	if resp.StatusCode != 200 || calls.Load() != 1 {
		t.Errorf("title request: status %d, handler calls %d", resp.StatusCode, calls.Load())
	}
	if got := srv.Requests(); len(got) != 2 || got[1].Kind != "title" || len(srv.Prompts()) != 1 {
		t.Errorf("recorded %+v", got)
	}
}

func TestDelayEndsWithClient(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text("late").After(time.Hour) })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.OpenAIURL()+"/chat/completions", strings.NewReader(`{"model":"m"}`))
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("a reply delayed by an hour arrived")
	}
	srv.Close() // must not wait for the hour
}

// TestOpenCodeRun checks the fixture other packages rely on: a real
// `opencode run` in OpenCodeEnv, configured by WriteOpenCodeConfig, gets
// its answer from the server, offline, and stores the session in the
// isolated home.
func TestOpenCodeRun(t *testing.T) {
	needtool.Path(t, "opencode")
	home := t.TempDir()
	srv := llmtest.NewServer(t, func(r llmtest.Recorded) llmtest.Reply { return llmtest.Text("PONG-42") })
	llmtest.WriteOpenCodeConfig(t, home, srv)
	work := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "opencode", "run", "--pure", "ping please")
	cmd.Env = llmtest.OpenCodeEnv(home)
	cmd.Dir = work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("opencode run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(string(out), "PONG-42") {
		t.Errorf("output %q does not hold the fake's answer", out)
	}
	prompts := srv.Prompts()
	if len(prompts) == 0 || !strings.Contains(prompts[len(prompts)-1].User, "ping please") || !prompts[0].Stream {
		t.Errorf("prompts %+v", prompts)
	}
	db, err := sql.Open("sqlite", "file:"+llmtest.OpenCodeDB(home)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM session").Scan(&n); err != nil || n != 1 {
		t.Errorf("sessions in the isolated database: %d, %v", n, err)
	}
	if installed, _ := os.ReadDir(llmtest.OpenCodeConfigDir(home) + "/node_modules"); len(installed) > 0 {
		t.Errorf("opencode installed packages (npm registry reached): %v", installed)
	}
}
