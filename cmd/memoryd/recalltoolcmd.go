package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/cited"
	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/recall"
	"github.com/memoryd/memoryd/internal/state"
)

// toolRecallMaxBytes bounds what the tool-call hook adds: a few facts'
// index lines and the start of their bodies.
const toolRecallMaxBytes = 600

// toolPreface is the first line of what the tool-call hook adds.
const toolPreface = "From the user's long-term memory (memoryd), facts about %s — the file this tool call reads or edits:"

func newCmdRecallTool(a *app) *cobra.Command {
	o := &recallOptions{app: a}
	return &cobra.Command{
		Use:   "recall-tool",
		Short: "Agent hook: read a tool call's JSON on stdin, print the facts that cite or name the file it reads or edits (nothing when none does, or on any error).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runRecallTool(cmd.Context(), o) },
	}
}

// toolInput is what recall-tool reads of a tool call: Claude Code's and
// Codex's PreToolUse payload (tool_input.file_path, or notebook_path), or
// the OpenCode plugin's (filePath).
type toolInput struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Event     string `json:"hook_event_name"`
	ToolInput struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		FilePathJS   string `json:"filePath"`
	} `json:"tool_input"`
}

// runRecallTool is the tool-call hook. It fails open, like recall: any
// error ends it with exit 0 and nothing printed, the reason in recall.log.
func runRecallTool(ctx context.Context, o *recallOptions) error {
	e := o.env
	cfg, _, err := loadConfig(e, o.global)
	var out, note string
	if err == nil {
		a := recallWithin(ctx, cfg.Recall.Timeout.D(), func(ctx context.Context) recallResult {
			out, note, err := toolRecallAnswer(ctx, o, cfg)
			return recallResult{out, note, err}
		})
		out, note, err = a.out, a.note, a.err
	}
	if err != nil {
		recallLogger(e).Warn("recall-tool: nothing added", "reason", err.Error())
		return nil
	}
	if out != "" {
		recallLogger(e).Info("recall-tool: " + note)
		io.WriteString(e.stdout, out)
	}
	return nil
}

// toolRecallAnswer finds the facts about the tool call's file. The map of
// cited files decides first, from one small file in the state folder:
// when no fact is about the file, nothing else is opened.
func toolRecallAnswer(ctx context.Context, o *recallOptions, cfg config.Config) (out, note string, err error) {
	e := o.env
	in, err := readToolInput(e.stdin)
	if err != nil {
		return "", "", err
	}
	file := cmp.Or(in.ToolInput.FilePath, in.ToolInput.NotebookPath, in.ToolInput.FilePathJS)
	if file == "" || cfg.Recall.MaxBytes == 0 {
		return "", "", nil
	}
	cwd := cmp.Or(in.Cwd, workDir())
	if !filepath.IsAbs(file) {
		file = filepath.Join(cwd, file)
	}
	root := project.Root(filepath.Dir(file))
	rel, err := filepath.Rel(root, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", "", nil
	}
	rel, slug := filepath.ToSlash(rel), project.Slug(root)
	real, err := state.RealPath(cfg.MemoryDir)
	if err != nil {
		return "", "", err
	}
	sd, err := state.Dir(stateHome(e), real)
	if err != nil {
		return "", "", err
	}
	m, err := cited.Read(sd)
	if err != nil {
		return "", "", nil // no daemon wrote the map yet: nothing is known to be about the file
	}
	files := m.Facts(slug, rel)
	if len(files) == 0 {
		return "", "", nil
	}
	return toolRecallFacts(ctx, o, in, rel, files)
}

// readToolInput reads and parses the hook's input.
func readToolInput(r io.Reader) (toolInput, error) {
	var in toolInput
	data, err := io.ReadAll(io.LimitReader(r, recallInputMax))
	if err != nil {
		return in, fmt.Errorf("read the hook's input: %w", err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("hook input: %w", err)
	}
	return in, nil
}

// toolRecallFacts reads, gates and renders the facts about rel that the
// session was not given yet, and records them as given.
func toolRecallFacts(ctx context.Context, o *recallOptions, in toolInput, rel string, files []string) (out, note string, err error) {
	f, err := readFolder(o.env, o.global)
	if err != nil {
		return "", "", err
	}
	var given recall.Sessions
	if in.SessionID != "" {
		state.ReadJSON(f.stateDir, recallSessionsFile, &given)
	}
	chk := cite.NewChecker(cmp.Or(in.Cwd, workDir()))
	g := f.gate()
	var cands []recall.Fact
	for _, file := range files {
		if in.SessionID != "" && given.Given(in.SessionID, file) {
			continue
		}
		data, err := index.ReadPlain(f.dir, file)
		if err != nil {
			continue // gone since the daemon mapped it
		}
		m, err := index.Parse(file, data)
		if err != nil {
			continue
		}
		if fact, ok := recallFact(g, m, cite.Marker(chk.Check(m).Changes)); ok {
			cands = append(cands, fact)
		}
	}
	text, shown := recall.Render(cands, min(toolRecallMaxBytes, f.cfg.Recall.MaxBytes))
	if text == "" {
		return "", "", nil
	}
	text = fmt.Sprintf(toolPreface, rel) + strings.TrimPrefix(text, recall.Preface)
	names, err := recordRecalled(ctx, f, in.SessionID, shown)
	if err != nil {
		return "", "", err
	}
	out, err = recallOutput("auto", in.Event, text)
	return out, "added " + strings.Join(names, ", ") + " for " + rel, err
}
