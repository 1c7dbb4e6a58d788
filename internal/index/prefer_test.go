package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// preferFolder writes ten reference facts, one a day in March, and returns
// the folder; with preferBudget an index lists five of them.
func preferFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i := 1; i <= 10; i++ {
		name := fmt.Sprintf("fact-%02d", i)
		write(t, dir, "reference-"+name+".md", fmt.Sprintf(
			"---\nname: %s\ndescription: Fact number %d\nmetadata:\n  type: reference\n  updated: 2025-03-%02d\n---\nBody %d.\n", name, i, i, i))
	}
	return dir
}

var preferBudget = Budget{Lines: 12, Bytes: 25_000} // five facts

// TestBudgetPrefersUsedFacts: past the budget, a fact agents use is listed
// before newer ones nobody used; without counts the newest are listed; a
// pinned fact still comes first.
func TestBudgetPrefersUsedFacts(t *testing.T) {
	snap, err := Scan(preferFolder(t))
	if err != nil {
		t.Fatal(err)
	}
	plain := string(buildAll(snap, preferBudget, nil)[0].data)
	if strings.Contains(plain, "reference-fact-01.md") || !strings.Contains(plain, "reference-fact-10.md") {
		t.Fatalf("without counts the newest are listed:\n%s", plain)
	}
	used := string(buildAll(snap, preferBudget, &Preference{Uses: map[string]int{"reference-fact-01.md": 3, "reference-fact-02.md": 1}})[0].data)
	if !strings.Contains(used, "reference-fact-01.md") || !strings.Contains(used, "reference-fact-02.md") {
		t.Fatalf("the used old facts are not listed:\n%s", used)
	}
	if strings.Contains(used, "reference-fact-07.md") || !strings.Contains(used, "reference-fact-10.md") {
		t.Fatalf("after the used facts, the newest:\n%s", used)
	}
	if !strings.Contains(used, "> 5 more memories are not listed here (reference 5) — memoryd search WORDS, or the memory_search tool.") {
		t.Fatalf("more line:\n%s", used)
	}
	// Counts are bucketed: 4 and 7 uses weigh the same, so the newer wins.
	tie := string(buildAll(snap, Budget{Lines: 8, Bytes: 25_000}, &Preference{Uses: map[string]int{"reference-fact-01.md": 7, "reference-fact-02.md": 4}})[0].data)
	if !strings.Contains(tie, "reference-fact-02.md") || strings.Contains(tie, "reference-fact-01.md") {
		t.Fatalf("4 and 7 uses should tie, then the newer:\n%s", tie)
	}
}

// TestStoreKeepsChoiceUntilAFactChanges: the counts change the indexes
// only when the choice is made afresh — a fact changed, or Rechoose — never
// on a rewrite of the same facts (a rescan, a restart), and an index chosen
// elsewhere (another machine's, pulled) is kept while the facts are the same.
func TestStoreKeepsChoiceUntilAFactChanges(t *testing.T) {
	dir := preferFolder(t)
	uses := map[string]int{}
	s := NewStore(dir)
	s.SetBudget(preferBudget)
	s.SetUsage(func() map[string]int { return uses })
	if _, err := s.Settle(); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		data, err := os.ReadFile(filepath.Join(dir, IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	first := read()
	if strings.Contains(first, "reference-fact-01.md") {
		t.Fatalf("no uses yet, the oldest listed:\n%s", first)
	}

	uses = map[string]int{"reference-fact-01.md": 5}
	for range 2 { // a rescan, then the daemon's next start
		if w, err := s.Settle(); err != nil || w.Changed {
			t.Fatalf("rewrite without a fact change changed the index: %+v, %v\n%s", w, err, read())
		}
		s = NewStore(dir)
		s.SetBudget(preferBudget)
		s.SetUsage(func() map[string]int { return uses })
	}

	if err := s.Scan(); err != nil { // the running daemon has seen the folder
		t.Fatal(err)
	}
	write(t, dir, "reference-fact-05.md", "---\nname: fact-05\ndescription: Fact number 5, edited\nmetadata:\n  type: reference\n  updated: 2025-03-05\n---\nBody.\n")
	if err := s.Refresh("reference-fact-05.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Settle(); err != nil {
		t.Fatal(err)
	}
	chosen := read()
	if !strings.Contains(chosen, "reference-fact-01.md") || strings.Contains(chosen, "reference-fact-06.md") {
		t.Fatalf("after a fact changed, the used fact is not chosen over the oldest unused one:\n%s", chosen)
	}

	// Another machine with other counts: its process finds the index as
	// this one wrote it and keeps it.
	other := NewStore(dir)
	other.SetBudget(preferBudget)
	other.SetUsage(func() map[string]int { return map[string]int{"reference-fact-02.md": 50, "reference-fact-03.md": 50} })
	if w, err := other.Settle(); err != nil || w.Changed {
		t.Fatalf("another machine's counts rewrote an index of the same facts: %+v, %v\n%s", w, err, read())
	}
	other.Rechoose()
	if _, err := other.Settle(); err != nil {
		t.Fatal(err)
	}
	if got := read(); !strings.Contains(got, "reference-fact-02.md") || !strings.Contains(got, "reference-fact-03.md") {
		t.Fatalf("Rechoose did not choose with the counts:\n%s", got)
	}
}
