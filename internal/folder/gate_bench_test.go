package folder

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

// benchFact is an ordinary fact of about 600 bytes, the size recall shows.
func benchFact(b *testing.B, i int) *index.Memory {
	body := strings.Repeat(fmt.Sprintf("Fact %d: the staging deploy runs make ship from the repository root, never on a Friday. ", i), 7)
	m, err := index.Parse(fmt.Sprintf("project-f%d.md", i), []byte("---\nname: f"+fmt.Sprint(i)+"\ndescription: a fact about deploys\nmetadata:\n  type: project\n---\n"+body+"\n"))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkGatePlantedRules is the planted-instruction rules on one fact
// not seen before (the index's hold on a changed fact).
func BenchmarkGatePlantedRules(b *testing.B) {
	m := benchFact(b, 1)
	text := plantedText(m)
	for b.Loop() {
		PlantedInstruction(text)
	}
}

// BenchmarkGateIndexHoldCached is the index's hold on a fact whose hash
// the gate has seen (every index write after the first).
func BenchmarkGateIndexHoldCached(b *testing.B) {
	m := benchFact(b, 1)
	m.Hash = "h1"
	hold := NewGate("").Holds(RoadIndex)
	for b.Loop() {
		hold(m)
	}
}

// BenchmarkGateDecideRecall is one recall candidate through the gate:
// the planted rules and the secret screen of the whole file.
func BenchmarkGateDecideRecall(b *testing.B) {
	m := benchFact(b, 1)
	g := NewGate(b.TempDir())
	for b.Loop() {
		g.Decide(RoadRecall, m, "")
	}
}
