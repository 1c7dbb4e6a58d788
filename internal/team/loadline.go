package team

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memoryd/memoryd/internal/index"
)

// LoadLine is the line of an AGENTS.md or CLAUDE.md that makes an agent
// without memoryd load the team's index (Claude Code's and Codex's import
// syntax): `@.memory/MEMORY.md`.
const LoadLine = "@" + DirName + "/" + index.IndexFile

// instructionFiles are the agents' instruction files at a repository's
// root that LoadLine goes in.
var instructionFiles = []string{"AGENTS.md", "CLAUDE.md"}

// LoadAdvice is what `memoryd install` run in dir tells the person: when
// dir's project has team memory and none of its root's AGENTS.md or
// CLAUDE.md holds LoadLine, the line to add for teammates whose agents do
// not run memoryd; "" otherwise. It only reads: those files are the
// team's, changed by a person in a commit like any other.
func LoadAdvice(dir string) string {
	f, ok := Find(dir)
	if !ok {
		return ""
	}
	for _, name := range instructionFiles {
		if data, err := os.ReadFile(filepath.Join(f.Root, name)); err == nil && bytes.Contains(data, []byte(LoadLine)) {
			return ""
		}
	}
	return fmt.Sprintf("This repository (%s) keeps team memory in %s/; memoryd gives it to your agents.\n"+
		"For a teammate whose agent does not run memoryd, add this line to AGENTS.md or CLAUDE.md\n"+
		"at %s and commit it with your change (memoryd does not edit those files):\n\n    %s\n",
		f.Slug, DirName, f.Root, LoadLine)
}
