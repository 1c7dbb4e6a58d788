package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

const benchFiles = 10_000

// benchStore writes n memory files of a few hundred bytes each, a tenth of
// them in subdirectories, and returns their relative paths.
func benchStore(b *testing.B, dir string, n int) []string {
	b.Helper()
	rels := make([]string, n)
	for i := range n {
		typ := Types[i%len(Types)]
		name := fmt.Sprintf("fact-number-%05d", i)
		rel := typ + "-" + name + ".md"
		if i%10 == 0 {
			rel = fmt.Sprintf("area-%d/%s", i%7, rel)
		}
		rels[i] = rel
		write(b, dir, rel, benchContent(typ, name, 0))
	}
	return rels
}

func benchContent(typ, name string, version int) string {
	return fmt.Sprintf("---\nname: %s\ndescription: Remembered fact %s about the project, version %d\nmetadata:\n  type: %s\n---\n"+
		"The user said something worth keeping about %s.\nWhy: it came up in review twice.\nHow to apply: follow it.\n",
		name, name, version, typ, name)
}

// BenchmarkReadFiles10k is the floor: reading every file and nothing else.
func BenchmarkReadFiles10k(b *testing.B) {
	dir := b.TempDir()
	rels := benchStore(b, dir, benchFiles)
	paths := make([]string, len(rels))
	for i, rel := range rels {
		paths[i] = filepath.Join(dir, filepath.FromSlash(rel))
	}
	b.ResetTimer()
	for b.Loop() {
		for _, p := range paths {
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkScanBuild10k is a cold start: a fresh Store scans and parses
// every file, then MEMORY.md is built.
func BenchmarkScanBuild10k(b *testing.B) {
	dir := b.TempDir()
	benchStore(b, dir, benchFiles)
	b.ResetTimer()
	for b.Loop() {
		s := NewStore(dir)
		if err := s.Scan(); err != nil {
			b.Fatal(err)
		}
		if len(Build(s.Snapshot())) == 0 {
			b.Fatal("empty index")
		}
	}
}

// BenchmarkOneChange10k is the steady state: one file of 10,000 changes,
// the Store refreshes it, and MEMORY.md is rebuilt and written.
func BenchmarkOneChange10k(b *testing.B) {
	dir := b.TempDir()
	rels := benchStore(b, dir, benchFiles)
	s := NewStore(dir)
	if err := s.Scan(); err != nil {
		b.Fatal(err)
	}
	if _, err := s.WriteIndex(); err != nil {
		b.Fatal(err)
	}
	rel := rels[len(rels)/2]
	p := filepath.Join(dir, filepath.FromSlash(rel))
	b.ResetTimer()
	version := 0
	for b.Loop() {
		version++
		if err := os.WriteFile(p, []byte(benchContent("project", "changed", version)), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := s.Refresh(rel); err != nil {
			b.Fatal(err)
		}
		w, err := s.WriteIndex()
		if err != nil || !w.Changed {
			b.Fatalf("WriteIndex: %v %v", w, err)
		}
	}
}

// BenchmarkBuild10k is Build alone, the CPU part of every index rebuild.
func BenchmarkBuild10k(b *testing.B) {
	dir := b.TempDir()
	benchStore(b, dir, benchFiles)
	s := NewStore(dir)
	if err := s.Scan(); err != nil {
		b.Fatal(err)
	}
	snap := s.Snapshot()
	b.ResetTimer()
	for b.Loop() {
		Build(snap)
	}
}
