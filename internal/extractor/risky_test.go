package extractor

import (
	"testing"

	"github.com/memoryd/memoryd/internal/folder"
)

// TestOrdinaryFactsNotHeld: the secret screen's table of ordinary facts,
// which talk about keys, tokens and commands, is not held for review.
func TestOrdinaryFactsNotHeld(t *testing.T) {
	for _, f := range ordinaryFacts {
		if r := folder.PlantedInstruction(f.text); r != "" {
			t.Errorf("%s held for review (%s): %q", f.name, r, f.text)
		}
	}
}
