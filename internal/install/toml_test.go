package install

import (
	"slices"
	"strings"
	"testing"
)

// TestTOMLInlineTables: the keys set to an inline table, at the top level
// and in a table, with quoted, literal and dotted keys; strings, comments
// and arrays that hold braces are no tables.
func TestTOMLInlineTables(t *testing.T) {
	doc := `# a { comment
a = { x = 1 }
"quoted.key" = {y = "}"}
s = "not { a table"
m = """
b = { inside a string }
"""
lit = '''
c = { also }'''
arr = [ { z = 1 }, "]" ]
[mcp_servers]
memoryd = { command = "memoryd", args = ["mcp"] }
'other'.sub = {}
[[tools]]
name = "x"
[deep.table]
k.l = { n = 2 } # trailing
`
	got := tomlInlineTables([]byte(doc))
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := "a deep.table.k.l mcp_servers.memoryd mcp_servers.other.sub quoted.key"
	if strings.Join(keys, " ") != want {
		t.Errorf("inline tables %q, want %q", strings.Join(keys, " "), want)
	}
}
