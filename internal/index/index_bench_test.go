package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	benchReadFiles(b, dir, benchStore(b, dir, benchFiles))
}

// benchReadFiles times os.ReadFile of each of rels in dir, one after
// another: the floor the scans are compared with.
func benchReadFiles(b *testing.B, dir string, rels []string) {
	b.Helper()
	paths := make([]string, len(rels))
	for i, rel := range rels {
		paths[i] = filepath.Join(dir, filepath.FromSlash(rel))
	}
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		for _, p := range paths {
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkScanBuild10k is a cold start: a fresh Store scans and parses
// every file, then MEMORY.md is built.
func BenchmarkScanBuild10k(b *testing.B) {
	dir := b.TempDir()
	benchStore(b, dir, benchFiles)
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		s := NewStore(dir)
		if err := s.Scan(); err != nil {
			b.Fatal(err)
		}
		if len(Build(s.Snapshot())) == 0 {
			b.Fatal("empty index")
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkOneChange10k is the steady state: one file of 10,000 changes,
// the Store refreshes it, and MEMORY.md is rebuilt (within the default
// budget) and written.
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
	cpu := cpuTime()
	for b.Loop() {
		version++
		// Pinned, so that it is listed within the budget and each change
		// rewrites MEMORY.md.
		content := strings.Replace(benchContent("project", "changed", version), "metadata:\n", "metadata:\n  pinned: true\n", 1)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
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
	reportCPU(b, cpu)
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
	cpu := cpuTime()
	for b.Loop() {
		Build(snap)
	}
	reportCPU(b, cpu)
}

const benchProjects = 50

// benchProjectStore writes n memory files like benchStore, four in five of
// them in one of benchProjects projects, each with metadata.updated and a
// few pinned, and returns their relative paths.
func benchProjectStore(b *testing.B, dir string, n int) []string {
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
		write(b, dir, rel, benchProjectContent(typ, name, i, 0))
	}
	return rels
}

func benchProjectContent(typ, name string, i, version int) string {
	meta := fmt.Sprintf("  updated: 2025-%02d-%02d\n", 1+i%12, 1+i%28)
	if i%5 != 0 {
		meta = fmt.Sprintf("  project: project-%02d\n", (i/5)%benchProjects) + meta
	}
	if i%500 == 0 {
		meta += "  pinned: true\n"
	}
	return fmt.Sprintf("---\nname: %s\ndescription: Remembered fact %s about the project, version %d\nmetadata:\n  type: %s\n%s---\n"+
		"The user said something worth keeping about %s.\nWhy: it came up in review twice.\nHow to apply: follow it.\n",
		name, name, version, typ, meta, name)
}

// BenchmarkReadFilesProjects10k is the floor for the project store: reading
// every file and nothing else.
func BenchmarkReadFilesProjects10k(b *testing.B) {
	dir := b.TempDir()
	benchReadFiles(b, dir, benchProjectStore(b, dir, benchFiles))
}

// BenchmarkReadFilesProjects10kParallel is the same floor read on the
// goroutines a Scan uses: on two shared cores each system call then costs
// more CPU time, so this is the floor for ScanBuildAll10k's CPU time, and
// the sequential one for its wall time.
func BenchmarkReadFilesProjects10kParallel(b *testing.B) {
	dir := b.TempDir()
	rels := benchProjectStore(b, dir, benchFiles)
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		parallel(len(rels), func(i int) {
			if _, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rels[i]))); err != nil {
				b.Error(err)
			}
		})
	}
	reportCPU(b, cpu)
}

// BenchmarkScanBuildAll10k is a cold start of the project store: a fresh
// Store scans and parses every file, then every index file is built within
// the default budget (MEMORY.md and 50 project indexes, all over budget).
func BenchmarkScanBuildAll10k(b *testing.B) {
	dir := b.TempDir()
	benchProjectStore(b, dir, benchFiles)
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		s := NewStore(dir)
		if err := s.Scan(); err != nil {
			b.Fatal(err)
		}
		if len(BuildAll(s.Snapshot(), DefaultBudget())) != benchProjects+1 {
			b.Fatal("wrong number of index files")
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkBuildAll10k is BuildAll alone: the CPU part of every rebuild.
func BenchmarkBuildAll10k(b *testing.B) {
	dir := b.TempDir()
	benchProjectStore(b, dir, benchFiles)
	s := NewStore(dir)
	if err := s.Scan(); err != nil {
		b.Fatal(err)
	}
	snap := s.Snapshot()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		BuildAll(snap, DefaultBudget())
	}
	reportCPU(b, cpu)
}

// BenchmarkOneChangeProjects10k is the steady state of the project store:
// one file changes, the Store refreshes it and WriteIndex writes what
// changed of the 51 index files.
func BenchmarkOneChangeProjects10k(b *testing.B) {
	dir := b.TempDir()
	rels := benchProjectStore(b, dir, benchFiles)
	s := NewStore(dir)
	if err := s.Scan(); err != nil {
		b.Fatal(err)
	}
	if _, err := s.WriteIndex(); err != nil {
		b.Fatal(err)
	}
	i := 7 // a project fact
	rel := rels[i]
	p := filepath.Join(dir, filepath.FromSlash(rel))
	b.ResetTimer()
	version := 0
	cpu := cpuTime()
	for b.Loop() {
		version++
		content := benchProjectContent(Types[i%len(Types)], fmt.Sprintf("fact-number-%05d", i), i, version)
		// Pinned, so that it is listed and each change rewrites its index.
		content = strings.Replace(content, "  updated:", "  pinned: true\n  updated:", 1)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
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
	reportCPU(b, cpu)
}
