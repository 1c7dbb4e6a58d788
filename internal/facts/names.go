package facts

import (
	"slices"
	"sort"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// Names are the names a person may give a fact by on the command line
// that start with prefix, sorted: each file name without .md and each
// name only one fact has (what Find resolves); inbox items are left out.
func Names(memories []*index.Memory, prefix string) []string {
	seen := map[string]int{}
	var out []string
	for _, m := range memories {
		if index.InInbox(m.File) {
			continue
		}
		out = append(out, strings.TrimSuffix(m.File, ".md"))
		seen[m.Name]++
	}
	for name, n := range seen {
		if n == 1 && name != "" {
			out = append(out, name)
		}
	}
	out = slices.DeleteFunc(out, func(s string) bool { return !strings.HasPrefix(s, prefix) })
	sort.Strings(out)
	return slices.Compact(out)
}
