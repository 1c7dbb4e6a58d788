package compactor

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm/llmtest"
)

// synthStore makes n memory files of the four types with realistic text.
// Every dupEvery-th file has a near-duplicate (same words, reordered and
// reworded a little) under another name; dups maps each such pair.
func synthStore(n, dupEvery int) (files map[string]string, dups [][2]string) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 4000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%03x%c", i, 'a'+rune(i%26))
	}
	common := []string{"the", "user", "prefers", "always", "when", "code", "with", "and", "for", "this"}
	files = map[string]string{}
	sentence := func(words []string) string { return strings.Join(words, " ") + "." }
	for i := 0; len(files) < n; i++ {
		typ := index.Types[i%len(index.Types)]
		words := append([]string{}, common[:4]...)
		for range 30 {
			words = append(words, vocab[r.IntN(len(vocab))])
		}
		name := fmt.Sprintf("fact-%05d", i)
		body := sentence(words) + "\nWhy: " + sentence(words[4:12])
		files[typ+"-"+name+".md"] = mem(typ, name, "About "+strings.Join(words[4:8], " "), body)
		if dupEvery > 0 && i%dupEvery == 0 && len(files) < n {
			dw := slices.Clone(words)
			dw[5], dw[9] = dw[9], "also"
			dname := fmt.Sprintf("restated-%05d", n-i) // far from name in file order
			files[typ+"-"+dname+".md"] = mem(typ, dname, "Again "+strings.Join(dw[4:8], " "), sentence(dw))
			dups = append(dups, [2]string{typ + "-" + name + ".md", typ + "-" + dname + ".md"})
		}
	}
	return files, dups
}

// synthItems parses files into sorted items.
func synthItems(t testing.TB, files map[string]string) []item {
	var items []item
	for _, name := range slices.Sorted(maps.Keys(files)) {
		m, err := index.Parse(name, []byte(files[name]))
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, item{mem: m, text: render(m), canon: index.Canonical(m.Body)})
	}
	return items
}

func TestBatchesWholeStoreWhenItFits(t *testing.T) {
	files, _ := synthStore(20, 0)
	items := synthItems(t, files)
	bs, large := makeBatches(items, DefaultBudget)
	if len(bs) != 1 || len(bs[0].items) != 20 || len(large) != 0 {
		t.Fatalf("%d batches, %d too large", len(bs), len(large))
	}
}

func TestBatchesSplitRelatedFilesTogether(t *testing.T) {
	files, dups := synthStore(400, 7)
	files["user-huge.md"] = mem("user", "huge", "Huge", strings.Repeat("a long line of text ", 800))
	items := synthItems(t, files)
	const budget = 12000
	bs, large := makeBatches(items, budget)
	if len(large) != 1 || large[0].File != "user-huge.md" {
		t.Errorf("too large: %v", large)
	}
	seen := map[string]int{}
	total := 0
	for i, b := range bs {
		if b.size > budget {
			t.Errorf("batch %d has %d characters, over the budget", i, b.size)
		}
		size := 0
		for _, it := range b.items {
			seen[it.mem.File]++
			size += len(it.text)
			if !b.files[it.mem.File] {
				t.Errorf("batch %d: %s missing from its file set", i, it.mem.File)
			}
		}
		if size != b.size || len(b.files) != len(b.items) {
			t.Errorf("batch %d: size %d vs %d, %d files vs %d items", i, size, b.size, len(b.files), len(b.items))
		}
		total += size
	}
	for _, it := range items {
		if want := 1; it.mem.File == "user-huge.md" {
			want = 0
			if seen[it.mem.File] != want {
				t.Errorf("%s in %d batches", it.mem.File, seen[it.mem.File])
			}
		} else if seen[it.mem.File] != want {
			t.Errorf("%s in %d batches, want %d", it.mem.File, seen[it.mem.File], want)
		}
	}
	if least := (total + budget - 1) / budget; len(bs) > least+least/2+1 {
		t.Errorf("%d batches for %d characters; packing is poor (at least %d needed)", len(bs), total, least)
	}
	batchOf := map[string]int{}
	for i, b := range bs {
		for _, it := range b.items {
			batchOf[it.mem.File] = i
		}
	}
	t.Logf("%d files, %d characters, %d batches, %d near-duplicate pairs", len(items), total, len(bs), len(dups))
	apart := 0
	for _, d := range dups {
		if batchOf[d[0]] != batchOf[d[1]] {
			apart++
		}
	}
	if apart > 0 {
		t.Errorf("%d of %d near-duplicate pairs in different batches", apart, len(dups))
	}
	// Deterministic.
	again, _ := makeBatches(synthItems(t, files), budget)
	if len(again) != len(bs) {
		t.Fatal("batching is not deterministic")
	}
	for i := range bs {
		if len(again[i].items) != len(bs[i].items) || again[i].items[0].mem.File != bs[i].items[0].mem.File {
			t.Fatal("batching is not deterministic")
		}
	}
}

// TestBatchedPass runs a pass over a store larger than the budget: several
// requests, every file sent once, no request over the budget, and an op
// naming a file of another request is skipped.
func TestBatchedPass(t *testing.T) {
	files, _ := synthStore(120, 0)
	const budget = 8000
	var other atomic.Pointer[string] // a file the first request did not show
	f := newFixture(t, files, func(r llmtest.Recorded) llmtest.Reply {
		if !strings.Contains(r.User, "Part 1 of") {
			return plan()
		}
		for name := range files {
			if !strings.Contains(r.User, `file="`+name+`"`) {
				other.Store(&name)
				return plan(map[string]any{"op": "delete", "file": name, "reason": "from another part"})
			}
		}
		return plan()
	})
	res, err := f.run(f.compactor(10*time.Second, func(o *Options) { o.Budget = budget }))
	if err == nil || !strings.Contains(err.Error(), "nothing") {
		t.Fatalf("err %v", err)
	}
	reqs := f.srv.Prompts()
	if len(reqs) < 2 || res.Calls != len(reqs) || res.Batches != len(reqs) {
		t.Fatalf("%d requests, result %+v", len(reqs), res)
	}
	sent := map[string]int{}
	chars := 0
	for _, r := range reqs {
		chars += len(r.System) + len(r.User)
		for name := range files {
			if c := strings.Count(r.User, `file="`+name+`"`); c > 0 {
				sent[name] += c
			}
		}
		if body := r.User[strings.Index(r.User, "<memory"):strings.LastIndex(r.User, "</memory>")]; len(body) > budget {
			t.Errorf("request over budget: %d characters of files", len(body))
		}
	}
	for name := range files {
		if sent[name] != 1 {
			t.Errorf("%s sent %d times", name, sent[name])
		}
	}
	if chars != res.CharsSent {
		t.Errorf("chars sent %d, result says %d", chars, res.CharsSent)
	}
	firstOther := *other.Load()
	if !skippedFor(res, firstOther+": not among the files of this request") || !f.exists(firstOther) {
		t.Errorf("cross-request op not skipped: %+v", res.Skipped)
	}
}

// BenchmarkBatches measures the CPU work of batching a store of 10,000
// facts that does not fit one request: rendering is excluded.
func BenchmarkBatches(b *testing.B) {
	files, _ := synthStore(10000, 10)
	items := synthItems(b, files)
	b.ResetTimer()
	for b.Loop() {
		makeBatches(items, DefaultBudget)
	}
}
