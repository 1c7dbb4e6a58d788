package main

import (
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
	"github.com/memoryd/memoryd/internal/thesaurus"
)

// TestSearchTypo: `memoryd search dployment` finds the fact about
// deployment by correcting the word, and a fact with the words as typed
// ranks above one found by a correction.
func TestSearchTypo(t *testing.T) {
	w := newWorld(t)
	// The two words in the same fields, so that only the correction
	// tells the facts apart.
	addFact(t, w, "project", "deployment-notes", "Deployment notes", "Every deployment goes through ArgoCD after review.")
	addFact(t, w, "project", "staging-notes", "Staging notes", "Every staging run goes through ArgoCD after review.")
	addFact(t, w, "user", "coffee", "Drinks flat whites", "Never sugar.")
	out, code := w.runCmd(nil, "search", "dployment")
	if code != 0 || !strings.HasPrefix(out, "project-deployment-notes.md") || strings.Contains(out, "user-coffee.md") {
		t.Fatalf("search dployment: exit %d\n%s", code, out)
	}
	out, code = w.runCmd(nil, "search", "deployment stagng")
	deploys, staging := strings.Index(out, "project-deployment-notes.md"), strings.Index(out, "project-staging-notes.md")
	if code != 0 || deploys < 0 || staging < 0 || deploys > staging {
		t.Fatalf("search deployment stagng: exit %d, want the exact match above the corrected one\n%s", code, out)
	}
}

// TestMCPSearchPhrasings: memory_search with several phrasings in queries
// finds a fact that the first phrasing alone misses, fused into one list.
func TestMCPSearchPhrasings(t *testing.T) {
	w := newWorld(t)
	w.write("project-stg-box.md", memoryFile("project", "stg-box", "The pre-release box", "Its host name is stg-7.internal; reach it through the bastion."))
	w.write("project-prod-deploys.md", memoryFile("project", "prod-deploys", "Production deploys", "Deploy to production with ArgoCD; the server is picked by the rollout."))
	cs, _ := w.mcpSession(w.home, "claude-code")
	first := "which server do we deploy staging to"
	out, isErr := callTool(t, cs, "memory_search", map[string]any{"query": first})
	if isErr || strings.Contains(out, "project-stg-box.md") || !strings.Contains(out, "project-prod-deploys.md") {
		t.Fatalf("memory_search %q alone: error=%v, want only the deploys fact\n%s", first, isErr, out)
	}
	out, isErr = callTool(t, cs, "memory_search", map[string]any{"queries": []string{first, "staging host"}})
	if isErr || !strings.Contains(out, "project-stg-box.md") || !strings.Contains(out, "project-prod-deploys.md") {
		t.Fatalf("memory_search queries: error=%v, want both facts\n%s", isErr, out)
	}
}

// TestSearchThesaurus: with WordNet, `memoryd search` finds a fact by a
// word related to the question's ("herb" → coriander), and says so under
// --explain; search.thesaurus off (MEMORY_THESAURUS) turns that off.
func TestSearchThesaurus(t *testing.T) {
	if thesaurus.Find() == nil {
		needtool.Missing(t, "WordNet", "not found", "apt-get install wordnet-base (.ci/run does)")
	}
	w := newWorld(t)
	addFact(t, w, "user", "ana-coriander", "Ana hates coriander", "Ana can't stand coriander; it tastes like soap to her.")
	addFact(t, w, "user", "ana-job", "Ana works as a nurse", "Ana is a nurse at the Leeds hospital.")
	q := "which herb does Ana refuse to eat"
	out, code := w.runCmd(nil, "search", "--explain", q)
	if code != 0 || !strings.HasPrefix(out, "user-ana-coriander.md") || !strings.Contains(out, "related coriander") {
		t.Fatalf("search %q: exit %d, want the coriander fact first, by a related word\n%s", q, code, out)
	}
	out, code = w.runCmd([]string{"MEMORY_THESAURUS=off"}, "search", "--explain", q)
	if code != 0 || strings.Contains(out, "related") {
		t.Fatalf("search %q with MEMORY_THESAURUS=off: exit %d, want no related match\n%s", q, code, out)
	}
}
