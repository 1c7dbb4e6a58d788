package install

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
)

// Claude Code's auto-memory: for each project a folder
// <claude dir>/projects/<encoded path>/memory/ of markdown facts with the
// same frontmatter as memoryd's (name, description, type) and a MEMORY.md
// index of its own. The encoded path is the project's path with every
// character other than a letter or a digit replaced by "-", which cannot be
// read back for sure ("my-app" or "my/app"); the transcripts beside it
// record the real working directory, and the file system settles the rest.

// ClaudeDir is Claude Code's folder: $CLAUDE_CONFIG_DIR (configDir) when
// absolute, else ~/.claude.
func ClaudeDir(home, configDir string) string {
	if filepath.IsAbs(configDir) {
		return configDir
	}
	return filepath.Join(home, ".claude")
}

// ClaudeFact is one fact of Claude Code's auto-memory, ready for
// facts.Writer.SaveAll.
type ClaudeFact struct {
	Path       string // the file in Claude Code's folder
	ProjectDir string // the project's working directory, as far as it is known
	Item       facts.Item
}

// ClaudeProblem is a file that could not be read as a fact.
type ClaudeProblem struct {
	Path string
	Err  error
}

// ReadClaudeMemory reads every fact of Claude Code's auto-memory under
// claudeDir (see ClaudeDir), in a stable order, and maps each to a memoryd
// fact: the same type, name (kebab-cased), description and body; the slug
// of its project for every type but user (a fact Claude Code keeps per
// project only holds there); provenance agent claude-code with the
// project's directory. It changes nothing. A missing folder holds no facts.
//
// The folder is read as untrusted: a link (a project folder, its memory
// folder or a fact) that leads out of claudeDir is not followed, a file
// over index.MaxFileSize is not read, and escape sequences and control
// characters are taken out of what is imported; each file left out is a
// ClaudeProblem that says why.
func ReadClaudeMemory(claudeDir string, now time.Time) ([]ClaudeFact, []ClaudeProblem, error) {
	projects := filepath.Join(claudeDir, "projects")
	root, err := filepath.EvalSymlinks(claudeDir)
	if err != nil {
		root = claudeDir
	}
	dirs, err := os.ReadDir(projects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("claude code memory: %w", err)
	}
	var out []ClaudeFact
	var problems []ClaudeProblem
	for _, d := range dirs {
		memDir := filepath.Join(projects, d.Name(), "memory")
		if err := inside(root, memDir); err != nil {
			problems = append(problems, ClaudeProblem{Path: memDir, Err: err})
			continue
		}
		files, err := os.ReadDir(memDir)
		if err != nil {
			continue // a project without auto-memory
		}
		projDir := claudeProjectDir(filepath.Join(projects, d.Name()))
		slug := project.Kebab(filepath.Base(projDir))
		if fi, err := os.Stat(projDir); err == nil && fi.IsDir() {
			slug = project.Slug(projDir)
		}
		for _, f := range files {
			name := f.Name()
			if f.IsDir() || !strings.HasSuffix(name, ".md") || name == indexFile || strings.HasPrefix(name, ".") {
				continue
			}
			p := filepath.Join(memDir, name)
			if err := inside(root, p); err != nil {
				problems = append(problems, ClaudeProblem{Path: p, Err: err})
				continue
			}
			item, err := claudeItem(p, slug)
			if err != nil {
				problems = append(problems, ClaudeProblem{Path: p, Err: err})
				continue
			}
			item.Source = index.Source{Agent: "claude-code", Cwd: projDir, At: now.UTC().Format(time.RFC3339)}
			out = append(out, ClaudeFact{Path: p, ProjectDir: projDir, Item: item})
		}
	}
	return out, problems, nil
}

// inside returns an error when p is, or leads through a link to, a place
// outside root (a resolved folder), or to something other than a folder or
// a regular file.
func inside(root, p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil // missing: nothing to read, the caller finds out
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("a link out of Claude Code's folder (to %s): not followed", real)
	}
	if fi, err := os.Stat(real); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s): not read", fi.Mode().Type())
	}
	return nil
}

// readCapped reads a fact file of at most index.MaxFileSize bytes; a larger
// one is refused unread.
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, index.MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > index.MaxFileSize {
		size := "more"
		if fi, err := f.Stat(); err == nil {
			size = fmt.Sprint(fi.Size())
		}
		return nil, fmt.Errorf("%s bytes, over the %d a fact file may have: not read", size, index.MaxFileSize)
	}
	return data, nil
}

// escapeSeq matches a terminal escape sequence: CSI (colours, cursor),
// OSC (titles, links) up to its terminator, or a lone two-byte escape.
var escapeSeq = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|\x{9b}[0-?]*[ -/]*[@-~]`)

// plainText takes escape sequences and control characters (newlines and
// tabs kept when multiline) out of text read from Claude Code's folder.
func plainText(s string, multiline bool) string {
	return index.CleanText(escapeSeq.ReplaceAllString(s, ""), multiline, 0)
}

// claudeItem reads one fact file.
func claudeItem(path, slug string) (facts.Item, error) {
	data, err := readCapped(path)
	if err != nil {
		return facts.Item{}, err
	}
	data = []byte(plainText(string(data), true))
	m, err := index.Parse(filepath.Base(path), data)
	if err != nil {
		return facts.Item{}, err
	}
	if !slices.Contains(index.Types, m.Type) {
		return facts.Item{}, fmt.Errorf("type %q is not one of %s", m.Type, strings.Join(index.Types, ", "))
	}
	m.Name, m.Description, m.Body = plainText(m.Name, false), plainText(m.Description, false), plainText(m.Body, true)
	name := m.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	name = project.Kebab(name) // the same rule: lower-case words joined by hyphens
	desc := strings.TrimSpace(m.Description)
	if desc == "" {
		desc = firstLine(m.Body, facts.MaxDescription)
	}
	f := facts.Fact{Type: m.Type, Name: name, Description: desc, Body: m.Body}
	if m.Type != "user" {
		f.Project = slug
	}
	return facts.Item{Fact: f}, nil
}

// firstLine is the first non-blank line of body, cut to at most n bytes.
func firstLine(body string, n int) string {
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#-* "))
		if l == "" {
			continue
		}
		if len(l) > n {
			cut := strings.LastIndexByte(l[:n], ' ')
			if cut <= 0 {
				cut = n
			}
			l = strings.ToValidUTF8(strings.TrimSpace(l[:cut]), "")
		}
		return l
	}
	return ""
}

// claudeProjectDir finds the working directory a project folder of Claude
// Code stands for: the cwd its transcripts record, else the path its name
// encodes as found on this machine, else the name read with "-" as "/".
func claudeProjectDir(folder string) string {
	if cwd := transcriptCwd(folder); cwd != "" {
		return cwd
	}
	name := filepath.Base(folder)
	if p := decodeProjectPath(string(filepath.Separator), strings.TrimPrefix(name, "-")); p != "" {
		return p
	}
	return string(filepath.Separator) + strings.ReplaceAll(strings.TrimPrefix(name, "-"), "-", string(filepath.Separator))
}

// transcriptCwd returns the first "cwd" a transcript (*.jsonl) in folder
// records, reading at most a few lines of each.
func transcriptCwd(folder string) string {
	files, _ := filepath.Glob(filepath.Join(folder, "*.jsonl"))
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for i := 0; i < 50 && sc.Scan(); i++ {
			var line struct {
				Cwd string `json:"cwd"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && filepath.IsAbs(line.Cwd) {
				f.Close()
				return filepath.Clean(line.Cwd)
			}
		}
		f.Close()
	}
	return ""
}

// decodeProjectPath finds under dir the existing path whose encoding (every
// character but letters and digits as "-") is rest, or "".
func decodeProjectPath(dir, rest string) string {
	if rest == "" {
		return dir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		enc := encodeName(e.Name())
		if !e.IsDir() || !strings.HasPrefix(rest, enc) {
			continue
		}
		switch after := rest[len(enc):]; {
		case after == "":
			return filepath.Join(dir, e.Name())
		case after[0] == '-':
			if p := decodeProjectPath(filepath.Join(dir, e.Name()), after[1:]); p != "" {
				return p
			}
		}
	}
	return ""
}

// encodeName is a path element as Claude Code writes it in a folder name.
func encodeName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}
