package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMCPSurvivesBadInput writes to `memoryd mcp` as a broken or hostile
// client would: a line that is not JSON, JSON that is no JSON-RPC message,
// an empty batch, an 8 MB line, a search for a 500 KB query. Each gets an
// error or an answer that quotes at most a short prefix of it, and the
// server goes on answering.
func TestMCPSurvivesBadInput(t *testing.T) {
	w := newWorld(t)
	w.write("user-coffee.md", memoryFile("user", "coffee", "Drinks oat-milk flat whites", "Never sugar."))
	cmd := exec.Command(binPath, "mcp")
	cmd.Env, cmd.Dir = w.env, w.notes
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	send := func(s string) {
		t.Helper()
		if _, err := stdin.Write([]byte(s + "\n")); err != nil {
			t.Fatalf("write %.40s: %v (the server is gone)", s, err)
		}
	}
	answer := func(what string) map[string]any {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s: the server closed its output", what)
			}
			if len(l) > 2048 {
				t.Errorf("%s: an answer of %d bytes: %.200s…", what, len(l), l)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%s: %v in %.200s", what, err, l)
			}
			return m
		case <-time.After(patience):
			t.Fatalf("%s: no answer", what)
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := answer("initialize"); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// Each error is a JSON-RPC response a client can match: "jsonrpc"
	// "2.0" and the request's id, read from the start of the line where
	// the line breaks or is cut after it, else null.
	for _, c := range []struct{ bad, id string }{
		{`this is not json {`, "null"},
		{`{}`, "null"},
		{`[]`, "null"},
		{`42`, "null"},
		{`{"jsonrpc":"2.0","id":7,"method":`, "7"},
		{`{"jsonrpc":"2.0","id":"req-8","method":"tools/call","params":{"name":"memory_search","arguments":{"query":"` + strings.Repeat("A", 8<<20) + `"}}}`, `"req-8"`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"memory_search","arguments":{"query":"` + strings.Repeat("A", 2<<20) + `"}},"id":9}`, "null"},
	} {
		what := fmt.Sprintf("%.40s", c.bad)
		send(c.bad)
		m := answer(what)
		id, hasID := m["id"]
		if got, _ := json.Marshal(id); m["error"] == nil || m["jsonrpc"] != "2.0" || !hasID || string(got) != c.id {
			t.Errorf("%s: want an error with jsonrpc 2.0 and id %s, got %v", what, c.id, m)
		}
	}
	send(`{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"` + strings.Repeat("zq", 250<<10) + `"}}}`)
	if m := answer("a 500 KB query"); m["result"] == nil && m["error"] == nil {
		t.Errorf("a 500 KB query: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"oat milk"}}}`)
	if m := answer("search after the bad lines"); !strings.Contains(fmt.Sprint(m["result"]), "user-coffee.md") {
		t.Errorf("search after the bad lines: %v", m)
	}
}
