package team

import (
	"context"
	"fmt"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/gittest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/memtest"
)

// BenchmarkContext is the team section of 1,000 facts, in process.
//
//	go test -run '^$' -bench Context ./internal/team/
func BenchmarkContext(b *testing.B) {
	root := filepath.Join(b.TempDir(), "shop")
	dir := filepath.Join(root, DirName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		text := memtest.Fact("project", fmt.Sprintf("rule-%d", i), fmt.Sprintf("Team rule %d about the widget%d service", i, i), "Why: the team agreed.\nHow to apply: always.")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("project-rule-%d.md", i)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	f := At(root)
	g := folder.NewGate("")
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			if _, err := f.Scan(); err != nil {
				b.Fatal(err)
			}
		}
	})
	snap, _ := f.Scan()
	b.Run("planted", func(b *testing.B) {
		for b.Loop() {
			for _, m := range snap.Memories {
				folder.PlantedInstruction(m.Body)
			}
		}
	})
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			Index(snap, f.Slug, index.DefaultBudget())
		}
	})
	b.Run("context", func(b *testing.B) {
		for b.Loop() {
			if _, err := f.Context(index.DefaultBudget(), g.PlantedHeld, Notes{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCached(b *testing.B) {
	root := filepath.Join(b.TempDir(), "shop")
	dir := filepath.Join(root, DirName)
	os.MkdirAll(dir, 0o755)
	gittest.Run(b, root, "init", "-q")
	old := time.Now().Add(-time.Hour)
	for i := range 1000 {
		text := memtest.Fact("project", fmt.Sprintf("rule-%d", i), fmt.Sprintf("Team rule %d about the widget%d service", i, i), "Why: the team agreed.\nHow to apply: always.")
		p := filepath.Join(dir, fmt.Sprintf("project-rule-%d.md", i))
		os.WriteFile(p, []byte(text), 0o644)
		os.Chtimes(p, old, old)
	}
	gittest.Run(b, root, "add", "-A")
	gittest.Run(b, root, "commit", "-q", "-m", "x")
	f, cache := At(root), b.TempDir()
	g := folder.NewGate("")
	ctx := context.Background()
	b.Run("authors", func(b *testing.B) {
		for b.Loop() {
			if _, err := f.CachedAuthors(ctx, cache); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fingerprint", func(b *testing.B) {
		for b.Loop() {
			f.fingerprint("")
		}
	})
	b.Run("context", func(b *testing.B) {
		for b.Loop() {
			if _, err := f.CachedContext(cache, "", index.DefaultBudget(), g.PlantedHeld, Notes{Byline: Bylines(func() map[string]gitstore.Authorship { a, _ := f.CachedAuthors(ctx, cache); return a })}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
