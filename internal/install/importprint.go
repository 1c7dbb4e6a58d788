package install

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/facts"
)

// PrintImported prints each fact imported (or that would be) and each
// skipped, and returns how many were imported.
func PrintImported(w io.Writer, results []facts.Result, found []ClaudeFact, problems []ClaudeProblem, home string, dry bool) int {
	verb := "import"
	if dry {
		verb = "would import"
	}
	n := 0
	for i, r := range results {
		from := TildePath(found[i].Path, home)
		if r.Skipped != nil {
			fmt.Fprintf(w, "skip      %s: %v\n", from, r.Skipped)
			continue
		}
		n++
		scope := "global"
		if p := found[i].Item.Project; p != "" {
			scope = "project " + p
		}
		fmt.Fprintf(w, "%-9s %s (%s) from %s\n", verb, r.File, scope, from)
	}
	for _, p := range problems {
		fmt.Fprintf(w, "skip      %s: %v\n", TildePath(p.Path, home), p.Err)
	}
	return n
}

// TildePath writes p under home as ~/….
func TildePath(p, home string) string {
	if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
		return "~" + string(os.PathSeparator) + rel
	}
	return p
}
