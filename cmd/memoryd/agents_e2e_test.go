package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// The real agents — Claude Code, Codex, OpenCode — wired by `memoryd
// install`, each in an isolated HOME and talking only to the fake model on
// 127.0.0.1 (llmtest), with telemetry and updates off. What the fake
// receives shows what each agent did with memoryd: the memory at session
// start, the four tools offered, and tool calls run through `memoryd mcp`.

// The facts of an agent world: one global, one for project app-a, one for
// project app-b. Their index lines are what the agents must (or must not)
// show the model.
const (
	coffeeLine  = "- [Coffee](user-coffee.md) — Drinks oat-milk flat whites"
	deployLine  = "- [Deploy](project-deploy.md) — Deploys app-a with make ship"
	billingLine = "- [Billing](project-billing.md) — Billing of app-b runs on webhooks"
	// deployHit is how memory_search shows the app-a fact.
	deployHit = "project-deploy.md — Deploy: Deploys app-a with make ship"
)

// agentWorld is a world with two project repositories, the facts above,
// the indexes rebuilt and the fake model running.
type agentWorld struct {
	*world
	srv        *llmtest.Server
	appA, appB string // the projects' repositories
}

func newAgentWorld(t *testing.T, handler func(llmtest.Recorded) llmtest.Reply) *agentWorld {
	t.Helper()
	w := &agentWorld{world: newWorld(t)}
	w.appA, w.appB = filepath.Join(w.home, "src", "app-a"), filepath.Join(w.home, "src", "app-b")
	for _, d := range []string{w.appA, w.appB} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		w.git(d, "init", "-q")
	}
	w.write("user-coffee.md", memoryFile("user", "coffee", "Drinks oat-milk flat whites", "Oat milk, never sugar."))
	w.write("project-deploy.md", projectFile("deploy", "app-a", "Deploys app-a with make ship", "Run make ship from the repository root; never on a Friday."))
	w.write("project-billing.md", projectFile("billing", "app-b", "Billing of app-b runs on webhooks", "Stripe webhooks."))
	if out, code := w.runCmd(nil, "rebuild"); code != 0 {
		t.Fatalf("rebuild: %s", out)
	}
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "facts")
	w.srv = llmtest.NewServer(t, handler)
	return w
}

func projectFile(name, project, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\nmetadata:\n  type: project\n  project: " + project + "\n---\n" + body + "\n"
}

// install runs `memoryd install --no-service` with the agent flags.
func (w *agentWorld) install(extra []string, flags ...string) {
	w.t.Helper()
	args := append([]string{"install", "--memory-dir", w.mem, "--no-service"}, flags...)
	if out, code := w.runCmd(extra, args...); code != 0 {
		w.t.Fatalf("install: exit %d\n%s", code, out)
	}
}

// agent runs an agent's command line in dir with env and stdin closed (a
// waiting `codex exec` would otherwise read it forever) and returns its
// output; it fails the test when the agent fails.
func (w *agentWorld) agent(dir string, env []string, name string, args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*patience)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, nil
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// mustCarry fails unless the request carries each of want.
func mustCarry(t *testing.T, what string, r llmtest.Recorded, want ...string) {
	t.Helper()
	for _, s := range want {
		if !r.Carries(s) {
			t.Errorf("%s does not carry %q", what, s)
		}
	}
}

// mustNotCarry fails if the request carries any of bad.
func mustNotCarry(t *testing.T, what string, r llmtest.Recorded, bad ...string) {
	t.Helper()
	for _, s := range bad {
		if r.Carries(s) {
			t.Errorf("%s carries %q", what, s)
		}
	}
}

// mustOffer fails unless the request offers the four memory tools, named
// with prefix ("mcp__memoryd__" for Claude Code and Codex).
func mustOffer(t *testing.T, r llmtest.Recorded, prefix string) {
	t.Helper()
	for _, tool := range []string{"memory_search", "memory_read", "memory_save", "memory_forget"} {
		if !r.HasTool(prefix + tool) {
			t.Errorf("the model is not offered %s%s; tools: %v", prefix, tool, r.Tools)
		}
	}
}

// firstWith returns the first prompt request for which ok holds.
func firstWith(t *testing.T, srv *llmtest.Server, what string, ok func(llmtest.Recorded) bool) llmtest.Recorded {
	t.Helper()
	for _, r := range srv.Prompts() {
		if ok(r) {
			return r
		}
	}
	t.Fatalf("no request %s among %d", what, len(srv.Prompts()))
	return llmtest.Recorded{}
}

// savedAndCommitted waits for the daemon to list file in the index named
// index and for the file to be in a commit, and checks `memoryd search`
// finds it.
func (w *agentWorld) savedAndCommitted(file, index, words string) {
	w.t.Helper()
	waitFor(w.t, file+" in "+index, func() bool {
		data, _ := os.ReadFile(filepath.Join(w.mem, index))
		return strings.Contains(string(data), "("+file+")")
	})
	waitFor(w.t, file+" committed", func() bool { return w.show("memory/"+file) != "" })
	if out, code := w.runCmd(nil, "search", "--all", words); code != 0 || !strings.Contains(out, file) {
		w.t.Errorf("memoryd search %s: exit %d\n%s", words, code, out)
	}
}
