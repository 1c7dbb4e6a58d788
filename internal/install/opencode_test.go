package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var entries = []string{"/notes/memory/PROTOCOL.md", "/notes/memory/MEMORY.md"}

// TestWireLayout checks the exact bytes of each edit, and that unwiring
// gives back the file as it was.
func TestWireLayout(t *testing.T) {
	cases := []struct {
		name, in, want string
		restored       bool // unwiring gives back `in` byte for byte
	}{{
		name: "multi-line list, comments, trailing commas",
		in: `{
  // my settings
  "model": "anthropic/claude-sonnet-4", // fast enough
  "instructions": [
    "~/AGENTS.md", // team rules
  ],
}
`,
		want: `{
  // my settings
  "model": "anthropic/claude-sonnet-4", // fast enough
  "instructions": [
    "~/AGENTS.md", // team rules
    "/notes/memory/PROTOCOL.md",
    "/notes/memory/MEMORY.md",
  ],
}
`,
		restored: true,
	}, {
		name:     "one-line list",
		in:       `{"instructions": ["a.md"], "theme": "dark"}`,
		want:     `{"instructions": ["a.md", "/notes/memory/PROTOCOL.md", "/notes/memory/MEMORY.md"], "theme": "dark"}`,
		restored: true,
	}, {
		name: "comment after the last entry, no trailing comma",
		in:   "{\n\t\"instructions\": [\n\t\t\"a.md\" /* first */\n\t]\n}\n",
		want: "{\n\t\"instructions\": [\n\t\t\"a.md\", /* first */\n\t\t\"/notes/memory/PROTOCOL.md\",\n\t\t\"/notes/memory/MEMORY.md\"\n\t]\n}\n",
	}, {
		name:     "no instructions key, tabs, trailing comma",
		in:       "{\n\t\"$schema\": \"https://opencode.ai/config.json\",\n\t\"theme\": \"dark\",\n}\n",
		want:     "{\n\t\"$schema\": \"https://opencode.ai/config.json\",\n\t\"theme\": \"dark\",\n\t\"instructions\": [\n\t\t\"/notes/memory/PROTOCOL.md\",\n\t\t\"/notes/memory/MEMORY.md\"\n\t],\n}\n",
		restored: true,
	}, {
		name: "no instructions key, one line",
		in:   `{"theme":"dark"}`,
		want: `{"theme":"dark", "instructions":["/notes/memory/PROTOCOL.md", "/notes/memory/MEMORY.md"]}`,
	}, {
		name: "empty object",
		in:   "{}\n",
		want: "{\n  \"instructions\": [\n    \"/notes/memory/PROTOCOL.md\",\n    \"/notes/memory/MEMORY.md\"\n  ]\n}\n",
	}, {
		name: "one entry already there",
		in:   "{\n  \"instructions\": [\n    \"/notes/memory/MEMORY.md\"\n  ]\n}\n",
		want: "{\n  \"instructions\": [\n    \"/notes/memory/MEMORY.md\",\n    \"/notes/memory/PROTOCOL.md\"\n  ]\n}\n",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "opencode.jsonc")
			writeFile(t, p, tc.in, 0o600)
			file, changed, err := WireOpenCode(dir, entries)
			if err != nil || !changed || file != p {
				t.Fatalf("wire: file=%s changed=%v err=%v", file, changed, err)
			}
			if got := readFile(t, p); got != tc.want {
				t.Fatalf("wired:\n%s\nwant:\n%s", got, tc.want)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v", fi.Mode().Perm())
			}
			if _, changed, err := WireOpenCode(dir, entries); err != nil || changed {
				t.Fatalf("second wire: changed=%v err=%v", changed, err)
			}
			if files, err := UnwireOpenCode(dir, entries); err != nil || len(files) != 1 {
				t.Fatalf("unwire: %v %v", files, err)
			}
			got := readFile(t, p)
			if tc.restored && got != tc.in {
				t.Errorf("unwired:\n%s\nwant the original:\n%s", got, tc.in)
			}
			if strings.Contains(got, "/notes/memory/") {
				t.Errorf("entries left:\n%s", got)
			}
		})
	}
}

// TestUnwireLayout removes entries from hand-edited files: comments about an
// entry leave with it, every other comment and the indentation stay.
func TestUnwireLayout(t *testing.T) {
	for _, tc := range []struct{ in, want string }{{
		in:   "{\n  \"instructions\": [\n    \"a.md\", // mine\n    // memoryd\n    \"/notes/memory/PROTOCOL.md\", // protocol\n    \"/notes/memory/MEMORY.md\"\n  ] // end\n}\n",
		want: "{\n  \"instructions\": [\n    \"a.md\" // mine\n  ] // end\n}\n",
	}, {
		in:   "{\n  \"instructions\": [\n    \"/notes/memory/MEMORY.md\",\n    \"b.md\",\n  ],\n}\n",
		want: "{\n  \"instructions\": [\n    \"b.md\",\n  ],\n}\n",
	}, {
		in:   `{"instructions": ["/notes/memory/PROTOCOL.md", "b.md", "/notes/memory/MEMORY.md", "c.md"]}`,
		want: `{"instructions": ["b.md", "c.md"]}`,
	}, {
		in:   "{\n  \"theme\": \"dark\", // mine\n  \"instructions\": [\"/notes/memory/MEMORY.md\"]\n}\n",
		want: "{\n  \"theme\": \"dark\" // mine\n}\n",
	}} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "opencode.jsonc"), tc.in, 0o644)
		if _, err := UnwireOpenCode(dir, entries); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, filepath.Join(dir, "opencode.jsonc")); got != tc.want {
			t.Errorf("unwire\n%s\ngot\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}

func TestWireCreatesOpenCodeJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "opencode")
	file, changed, err := WireOpenCode(dir, entries)
	if err != nil || !changed || file != filepath.Join(dir, "opencode.json") {
		t.Fatalf("file=%s changed=%v err=%v", file, changed, err)
	}
	want := "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"instructions\": [\n    \"/notes/memory/PROTOCOL.md\",\n    \"/notes/memory/MEMORY.md\"\n  ]\n}\n"
	if got := readFile(t, file); got != want {
		t.Errorf("created:\n%s", got)
	}
	if _, err := UnwireOpenCode(dir, entries); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, file); got != "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n" {
		t.Errorf("after unwire:\n%s", got)
	}
}

// TestWirePicksTheFileOpenCodeUses covers the precedence rule: the last file
// (config.json, opencode.json, opencode.jsonc) that has "instructions", else
// the last that exists.
func TestWirePicksTheFileOpenCodeUses(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string]string
		target string
	}{
		{"only config.json", map[string]string{"config.json": `{"theme": "dark"}`}, "config.json"},
		{"last existing", map[string]string{"config.json": `{}`, "opencode.json": `{}`}, "opencode.json"},
		{"earlier file holds instructions", map[string]string{"config.json": `{"instructions": []}`, "opencode.json": `{}`, "opencode.jsonc": `{}`}, "config.json"},
		{"later file holds instructions", map[string]string{"opencode.json": `{"instructions": ["x"]}`, "opencode.jsonc": `{"instructions": []}`}, "opencode.jsonc"},
		{"OpenCode's own jsonc beside the user's json", map[string]string{"opencode.json": `{"model": "openai/gpt-5-mini"}`, "opencode.jsonc": "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}"}, "opencode.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tc.files {
				writeFile(t, filepath.Join(dir, name), data, 0o644)
			}
			file, _, err := WireOpenCode(dir, entries)
			if err != nil || file != filepath.Join(dir, tc.target) {
				t.Fatalf("wired %s (%v), want %s", file, err, tc.target)
			}
			for name, data := range tc.files {
				if name != tc.target && readFile(t, filepath.Join(dir, name)) != data {
					t.Errorf("%s changed", name)
				}
			}
			from, list, err := OpenCodeInstructions(dir)
			if err != nil || from != file || !strings.Contains(strings.Join(list, "|"), strings.Join(entries, "|")) {
				t.Errorf("effective instructions from %s: %q %v", from, list, err)
			}
		})
	}
}

func TestUnwireKeepsEmptyListThatMasksAnEarlierFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "config.json"), `{"instructions": ["old.md"]}`, 0o644)
	writeFile(t, filepath.Join(dir, "opencode.json"), `{"instructions": []}`, 0o644)
	if _, _, err := WireOpenCode(dir, entries); err != nil {
		t.Fatal(err)
	}
	if _, err := UnwireOpenCode(dir, entries); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "opencode.json")); got != `{"instructions": []}` {
		t.Errorf("opencode.json: %s", got)
	}
	if _, list, _ := OpenCodeInstructions(dir); len(list) != 0 {
		t.Errorf("effective instructions changed: %q", list)
	}
}

func TestUnwireRemovesFromEveryFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "config.json"), `{"instructions": ["/notes/memory/MEMORY.md", "keep.md"]}`, 0o644)
	writeFile(t, filepath.Join(dir, "opencode.jsonc"), `{"instructions": ["/notes/memory/PROTOCOL.md"]}`, 0o644)
	files, err := UnwireOpenCode(dir, entries)
	if err != nil || len(files) != 2 {
		t.Fatalf("%v %v", files, err)
	}
	if got := readFile(t, filepath.Join(dir, "config.json")); got != `{"instructions": ["keep.md"]}` {
		t.Errorf("config.json: %s", got)
	}
	// config.json still has instructions, so the emptied later list stays.
	if got := readFile(t, filepath.Join(dir, "opencode.jsonc")); got != `{"instructions": []}` {
		t.Errorf("opencode.jsonc: %s", got)
	}
}

func TestWireRefusesBadFiles(t *testing.T) {
	for name, data := range map[string]string{
		"broken":       `{"instructions": [`,
		"not a list":   `{"instructions": "a.md"}`,
		"not strings":  `{"instructions": [1]}`,
		"not a object": `["a.md"]`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "opencode.json")
			writeFile(t, p, data, 0o644)
			if _, _, err := WireOpenCode(dir, entries); err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("err = %v", err)
			}
			if readFile(t, p) != data {
				t.Error("bad file was changed")
			}
		})
	}
}

func TestWireFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(t.TempDir(), "dotfiles-opencode.json")
	writeFile(t, real, `{"theme": "dark"}`, 0o644)
	link := filepath.Join(dir, "opencode.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := WireOpenCode(dir, entries); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("symlink replaced by a file")
	}
	if !strings.Contains(readFile(t, real), "/notes/memory/MEMORY.md") {
		t.Error("link target not edited")
	}
}
