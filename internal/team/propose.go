package team

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
)

// A proposal for a team is a fact in the person's review inbox whose
// frontmatter says which project's team memory it is for:
//
//	metadata:
//	  team: "/home/ann/src/shop"
//
// (the project's root on this machine). Accepting it writes the fact
// without that line into the project's .memory/.

// teamLine is the marker's line as Mark writes it.
var teamLine = regexp.MustCompile(`(?m)^  team: .*\n`)

// Mark is data, a fact file memoryd formatted, marked as a proposal for
// the team memory of the project whose root is root.
func Mark(data []byte, root string) []byte {
	const meta = "\nmetadata:\n"
	i := bytes.Index(data, []byte(meta))
	if i < 0 {
		return data
	}
	at := i + len(meta)
	line := "  team: " + strconv.Quote(root) + "\n"
	return append(append(append([]byte{}, data[:at]...), line...), data[at:]...)
}

// Unmark is data without the marker Mark added.
func Unmark(data []byte) []byte { return teamLine.ReplaceAll(data, nil) }

// ProposalRoot is the project root an inbox file's bytes are proposed
// for, "" when it is not a team proposal.
func ProposalRoot(data []byte) string {
	text := string(data)
	if !strings.HasPrefix(text, "---\n") {
		return ""
	}
	front, _, ok := strings.Cut(text[4:], "\n---")
	if !ok {
		return ""
	}
	var v struct {
		Metadata struct {
			Team string `yaml:"team"`
		} `yaml:"metadata"`
	}
	if yaml.Unmarshal([]byte(front), &v) != nil {
		return ""
	}
	return v.Metadata.Team
}

// ErrNotAccepted is wrapped by Accept's refusals.
var ErrNotAccepted = errors.New("cannot be accepted into the team memory")

// Accept writes the proposal data (an inbox file's bytes) into the folder
// as file, without its marker, after the checks every proposal passes: it
// must parse as a fact, the gate must give it whole to agents (no secret,
// no planted instruction, see folder.Gate) and it must not repeat a team
// fact (Duplicate). Then it writes the folder's MEMORY.md again. It
// commits nothing: the person commits both with their change. It returns
// the path written, relative to the project's root.
func (f Folder) Accept(ctx context.Context, stateDir string, g *folder.Gate, file string, data []byte, b index.Budget) (string, error) {
	file = path.Base(file)
	clean := Unmark(data)
	m, err := index.Parse(file, clean)
	if err != nil {
		return "", fmt.Errorf("%s %w: %v", file, ErrNotAccepted, err)
	}
	if d := g.Decide(folder.RoadRecall, m, ""); d.Verdict != folder.Give {
		return "", fmt.Errorf("%s %w: %s; reject it, or edit it (memoryd review) and accept again", file, ErrNotAccepted, strings.TrimPrefix(d.Reason, "held: "))
	}
	dup, err := f.Duplicate(ctx, stateDir, m.Name, m.Description, m.Body)
	if err != nil {
		return "", err
	}
	if dup != "" {
		return "", fmt.Errorf("%s %w: it says again what %s/%s says; reject it, or edit that file", file, ErrNotAccepted, DirName, dup)
	}
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return "", err
	}
	if _, err := atomicfile.Write(f.Dir, file, clean, 0o644); err != nil {
		return "", err
	}
	if _, err := f.WriteIndex(b); err != nil {
		return "", fmt.Errorf("write %s/%s: %w", DirName, index.IndexFile, err)
	}
	return DirName + "/" + file, nil
}

// ForDir is the team folder a proposal made in dir goes to: that of the
// project holding dir, created or not. ok is false outside a git
// repository.
func ForDir(dir string) (Folder, bool) {
	root := project.Root(dir)
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return Folder{}, false
	}
	return At(root), true
}
