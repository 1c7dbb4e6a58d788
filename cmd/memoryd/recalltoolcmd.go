package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cited"
	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/recall"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
)

// toolRecallMaxBytes bounds what the tool-call hook adds: a few facts'
// index lines and the start of their bodies.
const toolRecallMaxBytes = 600

func newCmdRecallTool(a *app) *cobra.Command {
	o := &recallOptions{app: a}
	return &cobra.Command{
		Use:   "recall-tool",
		Short: "Agent hook: read a tool call's JSON on stdin, print the facts about the file it reads or edits, or about the command that failed (nothing when none, or on any error).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runRecallTool(cmd.Context(), o) },
	}
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

// toolRecallAnswer finds the facts about the tool call's files, or about
// the command that failed. For files the map of cited files decides
// first, from one small file in the state folder: when no fact is about
// them, nothing else is opened.
func toolRecallAnswer(ctx context.Context, o *recallOptions, cfg config.Config) (out, note string, err error) {
	e := o.env
	in, err := readToolInput(e.stdin)
	if err != nil || cfg.Recall.MaxBytes == 0 {
		return "", "", err
	}
	if in.Failed != "" {
		return failedRecall(ctx, o, in)
	}
	if len(in.Files) == 0 {
		return "", "", nil
	}
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
	rels, files := m.About(cmp.Or(in.Cwd, workDir()), in.Files)
	if len(files) == 0 {
		return "", "", nil
	}
	f, err := readFolder(e, o.global)
	if err != nil {
		return "", "", err
	}
	about := strings.Join(rels, ", ")
	return toolRecallGive(ctx, f, in, fmt.Sprintf(recall.FileFacts, about), toolFacts(f, in, files), "for "+about)
}

// failedRecall finds the facts that mention the command that failed, as
// facts name it ("make migrate"): a search for its words, kept only where
// the fact holds the whole name.
func failedRecall(ctx context.Context, o *recallOptions, in recall.ToolCall) (out, note string, err error) {
	phrases := recall.CommandPhrases(in.Failed)
	if len(phrases) == 0 {
		return "", "", nil
	}
	if in.Ran != nil { // Codex: every command comes here, failed or not
		if in.Ran.Path == "" {
			return "", "", nil // an --ephemeral session keeps no rollout to say
		}
		if failed, err := in.Ran.Failed(ctx); !failed {
			return "", "", err
		}
	}
	f, err := readFolder(o.env, o.global)
	if err != nil {
		return "", "", err
	}
	slug := project.Slug(cmp.Or(in.Cwd, workDir()))
	hits, err := findHits(ctx, f, search.Query{Words: strings.Join(phrases, " "), Project: slug, Limit: recallCandidates}, nil)
	if err != nil && !errors.Is(err, search.ErrNoWords) {
		return "", "", err
	}
	var files []string
	for _, h := range hits {
		files = append(files, h.File)
	}
	var picked []recall.Fact
	named := ""
	for _, c := range toolFacts(f, in, files) {
		if p := recall.Mentions(c, phrases); p != "" && len(picked) < recall.MaxFacts {
			picked, named = append(picked, c), cmp.Or(named, p)
		}
	}
	return toolRecallGive(ctx, f, in, fmt.Sprintf(recall.FailedPreface, named), picked, "after `"+named+"` failed")
}

// readToolInput reads and parses the hook's input.
func readToolInput(r io.Reader) (recall.ToolCall, error) {
	data, err := io.ReadAll(io.LimitReader(r, recall.InputMax))
	if err != nil {
		return recall.ToolCall{}, fmt.Errorf("read the hook's input: %w", err)
	}
	return recall.ParseToolCall(data)
}

// toolFacts reads and gates the facts in files that the session was not
// given yet, in order, as recall reads its hits.
func toolFacts(f *folder, in recall.ToolCall, files []string) []recall.Fact {
	var given recall.Sessions
	if in.SessionID != "" {
		state.ReadJSON(f.stateDir, recall.SessionsFile, &given)
	}
	hits := make([]search.Hit, len(files))
	for i, file := range files {
		hits[i].File = file
	}
	skip := func(file string) bool { return in.SessionID != "" && given.Given(in.SessionID, file) }
	return recallFacts(f, hits, skip, cmp.Or(in.Cwd, workDir()))
}

// toolRecallGive renders cands under preface, records them as given to
// the session and answers in the hook's format; nothing when none fits.
func toolRecallGive(ctx context.Context, f *folder, in recall.ToolCall, preface string, cands []recall.Fact, why string) (out, note string, err error) {
	text, shown := recall.Render(cands, min(toolRecallMaxBytes, f.cfg.Recall.MaxBytes))
	if text == "" {
		return "", "", nil
	}
	names, err := recordRecalled(ctx, f, in.SessionID, shown)
	if err != nil {
		return "", "", err
	}
	out, err = recall.Output("auto", in.Event, recall.WithPreface(preface, text))
	return out, "added " + strings.Join(names, ", ") + " " + why, err
}
