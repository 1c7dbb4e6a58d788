package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// usedFact is a fact as list --json and show --json give it.
type usedFact struct {
	File     string `json:"file"`
	Uses     int    `json:"uses"`
	LastUsed string `json:"last_used"`
}

// usageWorld is a folder of facts whose index cannot list them all
// (index.max_lines 16): a pinned and a user fact, an old feedback fact, an
// old reference fact about the staging vault and six newer reference notes.
func usageWorld(t *testing.T) *world {
	w := newWorld(t)
	cfg := filepath.Join(w.home, ".config", "memoryd")
	os.MkdirAll(cfg, 0o755)
	w.write("config.yaml", "index:\n  max_lines: 16\n", cfg)
	day := func(daysAgo int) string { return time.Now().AddDate(0, 0, -daysAgo).Format(time.DateOnly) }
	fact := func(typ, name, desc, body, updated string, extra ...string) {
		w.write(typ+"-"+name+".md", fmt.Sprintf("---\nname: %s\ndescription: %s\nmetadata:\n  type: %s\n  updated: %s\n%s---\n%s\n",
			name, desc, typ, updated, strings.Join(extra, ""), body))
	}
	fact("reference", "vault", "Staging deploy credentials live in the team vault", "The staging deploy key is in the vault under app-a/deploy.", day(400))
	for i := 1; i <= 6; i++ {
		fact("reference", fmt.Sprintf("note-%d", i), fmt.Sprintf("Note number %d about fruit", i), "Bananas and apples.", day(i))
	}
	fact("user", "name", "The user's name is Ada", "Ada.", day(400))
	fact("feedback", "pinned-rule", "Always run the tests first", "Tests first.", day(400), "  pinned: true\n")
	fact("feedback", "old-style", "Prefers long option names in scripts", "Long options.", day(300))
	return w
}

func (w *world) uses(file string) usedFact {
	w.t.Helper()
	out, errOut, code := w.runCmd2(nil, "show", "--json", file)
	var f usedFact
	if err := json.Unmarshal([]byte(out), &f); code != 0 || err != nil {
		w.t.Fatalf("show --json %s: %d %v\n%s%s", file, code, err, out, errOut)
	}
	return f
}

// recallPrompt runs `memoryd recall` as the OpenCode plugin does, in dir.
func (w *world) recallPrompt(dir, session, prompt string) string {
	w.t.Helper()
	cmd := exec.Command(binPath, "recall", "--format", "text")
	cmd.Env, cmd.Dir = w.env, dir
	in, _ := json.Marshal(map[string]string{"session_id": session, "cwd": dir, "prompt": prompt})
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("recall: %v\n%s", err, out)
	}
	return string(out)
}

// TestUsageCounted: a search, an MCP read and a recall of a fact make
// `uses: 3` — counted in the state folder, the fact's bytes unchanged —;
// the index budget then lists that old, used fact over a newer unused one;
// MCP searches, concurrent commands and a loaded index count too; list
// --unused and status name the facts nobody used.
func TestUsageCounted(t *testing.T) {
	w := usageWorld(t)
	const vault = "reference-vault.md"
	before, err := os.ReadFile(filepath.Join(w.mem, vault))
	if err != nil {
		t.Fatal(err)
	}
	if out, code := w.runCmd(nil, "rebuild"); code != 0 {
		t.Fatalf("rebuild: %d\n%s", code, out)
	}
	if idx := w.index(); strings.Contains(idx, vault) || !strings.Contains(idx, "reference-note-2.md") {
		t.Fatalf("before any use, the budget lists the newest notes, not the old vault fact:\n%s", idx)
	}
	w.git(w.notes, "add", "-A")
	w.git(w.notes, "commit", "-q", "-m", "facts")
	if f := w.uses(vault); f.Uses != 0 || f.LastUsed != "" {
		t.Fatalf("unused fact: %+v", f)
	}

	if out, code := w.runCmd(nil, "search", "vault"); code != 0 || !strings.HasPrefix(out, vault) {
		t.Fatalf("search: %d\n%s", code, out)
	}
	cs, _ := w.mcpSession(w.home, "claude-code")
	if out, isErr := callTool(t, cs, "memory_read", map[string]any{"file": "vault"}); isErr || !strings.Contains(out, "app-a/deploy") {
		t.Fatalf("memory_read: %s", out)
	}
	if out := w.recallPrompt(w.home, "s1", "Where is the staging deploy key?"); !strings.Contains(out, vault) {
		t.Fatalf("recall did not inject the fact:\n%s", out)
	}
	f := w.uses(vault)
	if last, err := time.Parse(time.RFC3339, f.LastUsed); f.Uses != 3 || err != nil || time.Since(last) > time.Hour {
		t.Fatalf("after a search, a read and a recall: %+v (%v)", f, err)
	}
	if out, _ := w.runCmd(nil, "show", "vault"); !strings.HasPrefix(out, "# "+vault+" — used 3 times, last ") {
		t.Fatalf("show:\n%s", out)
	}
	after, _ := os.ReadFile(filepath.Join(w.mem, vault))
	if !bytes.Equal(before, after) {
		t.Fatalf("counting changed the fact's file:\n%s", after)
	}
	if st := w.git(w.notes, "status", "--porcelain"); st != "" {
		t.Fatalf("counting changed the notes repository:\n%s", st)
	}

	// The budget: the used old fact now goes before a newer unused one.
	if out, code := w.runCmd(nil, "rebuild"); code != 0 {
		t.Fatalf("rebuild: %d\n%s", code, out)
	}
	if idx := w.index(); !strings.Contains(idx, vault) || strings.Contains(idx, "reference-note-2.md") || !strings.Contains(idx, "memoryd search WORDS, or the memory_search tool.") {
		t.Fatalf("after three uses, the budget does not list the old used fact over the newer unused one:\n%s", idx)
	}

	// An MCP search, then eight commands searching at once: every use counted.
	if out, _ := callTool(t, cs, "memory_search", map[string]any{"query": "staging vault"}); !strings.Contains(out, vault) {
		t.Fatalf("memory_search:\n%s", out)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			cmd := exec.Command(binPath, "search", "vault")
			cmd.Env = w.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("search: %v\n%s", err, out)
			}
		})
	}
	wg.Wait()
	if f := w.uses(vault); f.Uses != 12 {
		t.Fatalf("after an MCP search and eight concurrent searches: %+v, want 12 uses", f)
	}

	// Unused: never used and written more than 60 days ago.
	// list shows them all; status proposes neither pinned nor user facts.
	out, code := w.runCmd(nil, "list", "--unused", "60d")
	if code != 0 || !strings.Contains(out, "feedback-old-style.md") || strings.Contains(out, vault) ||
		strings.Contains(out, "reference-note-") || !strings.Contains(out, "user-name.md") || !strings.Contains(out, "feedback-pinned-rule.md") {
		t.Fatalf("list --unused 60d:\n%s", out)
	}
	if out, code := w.runCmd(nil, "list", "--unused", "soon"); code != 2 || !strings.Contains(out, "give an age such as 60d") {
		t.Fatalf("list --unused soon: %d\n%s", code, out)
	}
	out, _, _ = w.runCmd2(nil, "status", "--json")
	var st struct {
		Unused *struct {
			After   string   `json:"after"`
			Files   []string `json:"files"`
			Command string   `json:"command"`
		} `json:"unused"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Unused == nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if u := st.Unused; u.After != "90d" || strings.Join(u.Files, ",") != "feedback-old-style.md" || u.Command != "memoryd list --all --unused 90d" {
		t.Fatalf("status proposes %+v; want the old feedback fact alone (pinned, user and used facts never)", u)
	}
	if out, _ := w.runCmd(nil, "status"); !strings.Contains(out, "unused         1 fact no agent used in 90d") {
		t.Fatalf("status:\n%s", out)
	}
	if out, _ := w.runCmd(nil, "review"); !strings.Contains(out, "also: 1 fact no agent used in 90d (never deleted on their own): memoryd list --all --unused 90d") {
		t.Fatalf("review:\n%s", out)
	}
	// A session that loads the index counts every fact it lists: a fact an
	// index lists is not unused while sessions start.
	if out, code := w.runCmd(nil, "context"); code != 0 || !strings.Contains(out, vault) {
		t.Fatalf("context: %d\n%s", code, out)
	}
	out, _, _ = w.runCmd2(nil, "list", "--json")
	var list []usedFact
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	got := map[string]int{}
	for _, f := range list {
		got[f.File] = f.Uses
	}
	if got[vault] != 13 || got["user-name.md"] != 1 || got["reference-note-2.md"] != 0 || !strings.Contains(out, `"uses": 0`) {
		t.Fatalf("list --json after context: %v\n%s", got, out)
	}

	if out, _ := w.runCmd(nil, "list", "--unused", "60d"); !strings.Contains(out, "every fact was used in the last 60d") {
		t.Fatalf("list --unused after a session loaded every fact:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(w.mem, "feedback-old-style.md")); err != nil {
		t.Fatalf("an unused fact was removed: %v", err)
	}
}
