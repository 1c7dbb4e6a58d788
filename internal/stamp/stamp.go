// Package stamp helps tests compare memory files that memoryd wrote: every
// write adds metadata.updated and a metadata.source entry, which change
// from run to run.
package stamp

import "strings"

// Strip returns a memory file without metadata.updated and the
// metadata.source block, for comparing the rest byte for byte.
func Strip(file string) string {
	var out []string
	inSource := false
	for _, l := range strings.SplitAfter(file, "\n") {
		switch {
		case strings.HasPrefix(l, "  updated: "):
			continue
		case strings.HasPrefix(l, "  source:"):
			inSource = true
			continue
		case inSource && strings.HasPrefix(l, "    "):
			continue
		}
		inSource = false
		out = append(out, l)
	}
	return strings.Join(out, "")
}
