package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
)

// Benchmarks at the scale of a large store: 10,000 facts of a few hundred
// bytes, a tenth in subfolders, words drawn from a vocabulary of 3,000 with
// a few very common ones, every body ending in the "Why:" and "How to
// apply:" lines facts are written with, a fifth of the facts in the current
// project and a fifth in others. Run them with
//
//	go test -run '^$' -bench . -benchmem ./search/
//
// and compare each with BenchmarkReadFiles10k of the same run, the floor:
// reading the files and nothing else. BenchmarkProcessStart is the floor of
// BenchmarkProcess10k.

const benchFacts = 10_000

// cpuMeter reports a benchmark's CPU time per op beside its wall time: on
// a loaded machine (two shared cores) CPU time varies much less, so the
// ratios between benchmarks of one run stay meaningful.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter { return cpuMeter{cpuUsed()} }

func (m cpuMeter) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuUsed()-m.start)/float64(b.N), "cpu-ns/op")
	}
}

var bench struct {
	once  sync.Once
	dir   string   // the memory folder, shared by every benchmark
	files []string // its files
	err   error
}

// benchFolder returns the shared memory folder, writing it the first time.
func benchFolder(b *testing.B) (string, []string) {
	b.Helper()
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "memoryd-search-bench-")
		if bench.err != nil {
			return
		}
		afterTests = append(afterTests, func() { os.RemoveAll(bench.dir) })
		bench.files, bench.err = writeBenchFacts(bench.dir, benchFacts)
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.dir, bench.files
}

func writeBenchFacts(dir string, n int) ([]string, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 3000)
	syllables := []string{"ka", "lo", "mi", "ren", "tas", "vo", "qui", "ba", "dor", "el", "fen", "gu", "hal", "ix", "jo", "nur", "pe", "sol", "tri", "zan"}
	for i := range vocab {
		var w strings.Builder
		for range 2 + rng.IntN(3) {
			w.WriteString(syllables[rng.IntN(len(syllables))])
		}
		vocab[i] = w.String()
	}
	// A Zipf-like draw: low indexes are much more common.
	word := func() string { return vocab[int(float64(len(vocab))*rng.Float64()*rng.Float64()*rng.Float64())] }
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	projects := []string{"memoryd", "memoryd", "memoryd", "memoryd", "alpha", "beta", "gamma", "delta", "", "", "", "", "", "", "", "", "", "", "", ""}
	files := make([]string, 0, n)
	for i := range n {
		f := fact{
			typ:         index.Types[i%len(index.Types)],
			name:        fmt.Sprintf("%s-%s-%05d", word(), word(), i),
			description: strings.ToUpper(words(1)[:1]) + words(8 + rng.IntN(6))[1:],
			project:     projects[i%len(projects)],
			body:        words(30+rng.IntN(40)) + ".\n\nWhy: " + words(10) + ".\nHow to apply: " + words(12) + ".",
		}
		if i == n/2 {
			f = tabsFact
		}
		rel := f.file()
		if i%10 == 0 {
			rel = fmt.Sprintf("area-%d/%s", i%7, rel)
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(f.content()), 0o644); err != nil {
			return nil, err
		}
		files = append(files, rel)
	}
	return files, nil
}

// benchIndex returns an index of the shared folder, built and fresh, in a
// state folder of its own.
func benchIndex(b *testing.B) *Index {
	b.Helper()
	dir, _ := benchFolder(b)
	x, err := Open(b.TempDir(), dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	if err := x.Fresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	return x
}

// BenchmarkReadFiles10k is the floor: os.ReadFile of every memory file.
func BenchmarkReadFiles10k(b *testing.B) {
	dir, files := benchFolder(b)
	paths := make([]string, len(files))
	for i, rel := range files {
		paths[i] = filepath.Join(dir, filepath.FromSlash(rel))
	}
	defer startCPU().report(b)
	for b.Loop() {
		for _, p := range paths {
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSearch10k is one query: a word few facts have, one many have
// (snippets are made for the ten best only), two words, a prefix, the
// current project first among all, a type filter, and two words no fact
// has together (the all-words query, then the any-word one).
func BenchmarkSearch10k(b *testing.B) {
	x := benchIndex(b)
	rare, common := benchWord(b, x, false), benchWord(b, x, true)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		q    Query
	}{
		{"rare", Query{Words: rare, Project: "memoryd"}},
		{"common", Query{Words: common, Project: "memoryd"}},
		{"two", Query{Words: common + " " + rare, Project: "memoryd"}},
		{"prefix", Query{Words: common[:3], Project: "memoryd"}},
		{"all", Query{Words: common, Project: "memoryd", All: true}},
		{"type", Query{Words: common, Project: "memoryd", Type: "reference"}},
		{"fallback", Query{Words: "tabs " + rare, Project: "memoryd", All: true}},
		{"every", Query{Words: "apply", Project: "memoryd", All: true}}, // a word in every fact
		{"question30", Query{Words: question30(x), Project: "memoryd", All: true}},
		{"typo", Query{Words: benchTypo(b, x, rare), Project: "memoryd"}}, // rare, misspelt
		// A prompt of 20 words of 5+ letters no fact has, each looked up
		// as a typo, and one word that finds something.
		{"absent20", Query{Words: rare + " please refactor these handlers before merging; nothing should change except naming, " +
			"formatting, logging, comments, imports, vendoring, linting, testing, benchmarks, profiling, caching, batching", Project: "memoryd"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			defer startCPU().report(b)
			for b.Loop() {
				hits, err := x.Search(ctx, c.q)
				if err != nil || len(hits) == 0 {
					b.Fatalf("Search(%+v): %d hits, %v", c.q, len(hits), err)
				}
			}
		})
	}
}

// benchTypo returns word with a letter left out, checking that the search
// corrects it.
func benchTypo(b *testing.B, x *Index, word string) string {
	b.Helper()
	typo := word[:len(word)/2] + word[len(word)/2+1:]
	hits, err := x.Search(context.Background(), Query{Words: typo, All: true, Explain: true})
	if err != nil || len(hits) == 0 || hits[0].Explain.Terms[0].Match != "typo" {
		b.Fatalf("Search(%q): not corrected: %+v, %v", typo, hits, err)
	}
	return typo
}

// BenchmarkVocabulary10k is what the first search with a typo adds, once
// for a process and after each change for the daemon: reading the
// vocabulary.
func BenchmarkVocabulary10k(b *testing.B) {
	x := benchIndex(b)
	ctx := context.Background()
	conn, err := x.db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	var v *vocabulary
	defer startCPU().report(b)
	for b.Loop() {
		if v, err = readVocabulary(ctx, conn); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	for _, forms := range v.byLen {
		n += len(forms)
	}
	b.ReportMetric(float64(n), "forms")
}

// question30 is a question of 30 words, a third of them stop words, the
// rest words of the vocabulary from the commonest down.
func question30(x *Index) string {
	rows, err := x.db.Query(`SELECT form FROM term WHERE length(form) > 4 ORDER BY length(postings) DESC LIMIT 20`)
	if err != nil {
		return "which tabs do I use"
	}
	defer rows.Close()
	words := []string{"which", "of", "the"}
	for rows.Next() {
		var w string
		rows.Scan(&w)
		words = append(words, w)
		if len(words)%3 == 0 {
			words = append(words, "what")
		}
	}
	return strings.Join(words[:min(30, len(words))], " ")
}

// benchWord returns a word of the vocabulary that many facts have (common)
// or only a few.
func benchWord(b *testing.B, x *Index, common bool) string {
	b.Helper()
	rows, err := x.db.Query(`SELECT form, postings FROM term WHERE length(form) > 4 ORDER BY form`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	best, bestDF := "", 0
	for rows.Next() {
		var form string
		var p []byte
		if err := rows.Scan(&form, &p); err != nil {
			b.Fatal(err)
		}
		df := 0
		decodePostings(p, func(int64, *tfs) { df++ })
		if common && df > bestDF || !common && best == "" && df >= 5 && df <= 20 {
			best, bestDF = form, df
		}
	}
	if best == "" {
		b.Fatal("no word found")
	}
	return best
}

// BenchmarkFreshUnchanged10k is what every command pays before it
// searches: the folder's fingerprint, found equal to the index's.
func BenchmarkFreshUnchanged10k(b *testing.B) {
	x := benchIndex(b)
	ctx := context.Background()
	cpu := startCPU()
	for b.Loop() {
		if err := x.Fresh(ctx); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
	if x.scans != 1 {
		b.Fatalf("%d scans, want 1", x.scans)
	}
}

// BenchmarkCommand10k is a whole `memoryd search` without a daemon but for
// starting the process: Find.
func BenchmarkCommand10k(b *testing.B) {
	x := benchIndex(b)
	stateDir, memoryDir := x.stateDir, x.memoryDir
	x.Close()
	ctx := context.Background()
	defer startCPU().report(b)
	for b.Loop() {
		if _, err := Find(ctx, stateDir, memoryDir, Query{Words: "tabs", Project: "memoryd"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProcess10k is a whole `memoryd search` as a process: this test
// binary started to Find once. Its start-up
// costs about what memoryd's does.
func BenchmarkProcess10k(b *testing.B) {
	x := benchIndex(b)
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), childEnv+"=1", childMemory+"="+x.memoryDir, childState+"="+x.stateDir)
	x.Close()
	defer startCPU().report(b)
	for b.Loop() {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkProcessStart is the floor for BenchmarkProcess10k: the same
// binary started to do nothing.
func BenchmarkProcessStart(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), childEnv+"=0")
	defer startCPU().report(b)
	for b.Loop() {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkSyncOneChange10k is the daemon after one file changed: the
// index.Store has read it again (not timed) and Sync updates the index.
func BenchmarkSyncOneChange10k(b *testing.B) {
	x := benchIndex(b)
	store := index.NewStore(x.memoryDir)
	if err := store.Scan(); err != nil {
		b.Fatal(err)
	}
	if err := x.Sync(context.Background(), store.Snapshot()); err != nil {
		b.Fatal(err)
	}
	f := fact{"project", "changing", "A fact that keeps changing", "memoryd", ""}
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f.body = "Version " + strconv.Itoa(i) + " of the body."
		rel := f.file()
		if err := os.WriteFile(filepath.Join(x.memoryDir, rel), []byte(f.content()), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := store.Refresh(rel); err != nil {
			b.Fatal(err)
		}
		snap := store.Snapshot()
		b.StartTimer()
		start := cpuUsed()
		if err := x.Sync(context.Background(), snap); err != nil {
			b.Fatal(err)
		}
		cpu += cpuUsed() - start
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	os.Remove(filepath.Join(x.memoryDir, f.file()))
}

// BenchmarkUpdateOneChange10k is what a writing command adds: open the
// index in a new process's way (no cache), Sync one changed fact, close.
func BenchmarkUpdateOneChange10k(b *testing.B) {
	x := benchIndex(b)
	stateDir, memoryDir := x.stateDir, x.memoryDir
	store := index.NewStore(memoryDir)
	if err := store.Scan(); err != nil {
		b.Fatal(err)
	}
	if err := x.Sync(context.Background(), store.Snapshot()); err != nil {
		b.Fatal(err)
	}
	x.Close()
	f := fact{"project", "changing", "A fact that keeps changing", "memoryd", ""}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f.body = "Version " + strconv.Itoa(i) + " of the body."
		rel := f.file()
		if err := os.WriteFile(filepath.Join(memoryDir, rel), []byte(f.content()), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := store.Refresh(rel); err != nil {
			b.Fatal(err)
		}
		snap := store.Snapshot()
		b.StartTimer()
		if err := Update(context.Background(), stateDir, memoryDir, snap); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	os.Remove(filepath.Join(memoryDir, f.file()))
}

// BenchmarkRebuild10k is a full rebuild: no index, then Fresh (scan and
// parse every file, index them all).
func BenchmarkRebuild10k(b *testing.B) {
	dir, _ := benchFolder(b)
	ctx := context.Background()
	defer startCPU().report(b)
	for b.Loop() {
		stateDir := b.TempDir()
		x, err := Open(stateDir, dir)
		if err != nil {
			b.Fatal(err)
		}
		err = x.Fresh(ctx)
		x.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan10k is the part of a rebuild that is not search's: an
// index.Store scanning and parsing every file.
func BenchmarkScan10k(b *testing.B) {
	dir, _ := benchFolder(b)
	defer startCPU().report(b)
	for b.Loop() {
		if err := index.NewStore(dir).Scan(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFingerprint10k is the listing and lstat of every file that
// Fresh and Sync pay.
func BenchmarkFingerprint10k(b *testing.B) {
	dir, _ := benchFolder(b)
	defer startCPU().report(b)
	for b.Loop() {
		if _, err := takeFingerprint(dir); err != nil {
			b.Fatal(err)
		}
	}
}
