package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/logfile"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/recall"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/usage"
)

type recallOptions struct {
	*app
	projectOnly bool
	format      string
}

func newCmdRecall(a *app) *cobra.Command {
	o := &recallOptions{app: a}
	cmd := &cobra.Command{
		Use:   "recall [--project-only] [--format=auto|json|text]",
		Short: "Agent hook: read the prompt's JSON on stdin, print the few relevant facts the session has not seen (nothing on any error).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runRecall(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.projectOnly, "project-only", false, "the session loaded MEMORY.md itself and `memoryd context --project-only` (Codex, OpenCode); default: `memoryd context` (Claude Code)")
	enumFlag(cmd, &o.format, "format", "auto", []string{"auto", "json", "text"}, "`FORMAT` of the answer: json (hookSpecificOutput.additionalContext, for Claude Code and Codex), text, or auto (json when the input names a hook event)")
	return cmd
}

// Files of recall: the log in memoryd's own state folder (a broken configuration
// names no memory folder, and its reason must still be written down).
const (
	recallLogFile = "recall.log"
	recallLogMax  = 256 << 10
)

// recallCandidates is how many search hits recall weighs.
const recallCandidates = 12

// runRecall is the per-prompt hook (`memoryd recall`). It fails open: any
// error, a broken configuration, an unreadable folder or the time-out
// ends it with exit 0 and nothing printed, the reason in recall.log — a
// memory that cannot answer must never stop an agent's prompt.
func runRecall(ctx context.Context, o *recallOptions) error {
	e := o.env
	start := time.Now()
	log := recallLogger(e)
	timeout := config.Default().Recall.Timeout.D()
	cfg, _, cfgErr := loadConfig(e, o.global)
	if cfgErr == nil {
		timeout = cfg.Recall.Timeout.D()
	}
	a := recallWithin(ctx, timeout, func(ctx context.Context) recallResult {
		if cfgErr != nil {
			return recallResult{err: cfgErr}
		}
		out, note, err := recallAnswer(ctx, o, cfg)
		return recallResult{out, note, err}
	})
	took := time.Since(start).Round(time.Millisecond)
	if a.err != nil {
		log.Warn("recall: nothing added", "reason", a.err.Error(), "took", took)
		return nil
	}
	log.Info("recall: "+a.note, "took", took)
	if a.out != "" {
		io.WriteString(e.stdout, a.out)
	}
	return nil
}

// recallResult is what recall prints, what it logs, or why it printed nothing.
type recallResult struct {
	out  string
	note string
	err  error
}

// recallWithin runs answer with a deadline of timeout. The work runs
// beside the clock so that a call that ignores ctx (a lock, a slow disk)
// cannot hold the prompt past the time-out; the process ends right after,
// taking it along.
func recallWithin(ctx context.Context, timeout time.Duration, answer func(context.Context) recallResult) recallResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan recallResult, 1)
	go func() { done <- answer(ctx) }()
	select {
	case a := <-done:
		return a
	case <-ctx.Done():
		return recallResult{err: fmt.Errorf("timed out after %s (recall.timeout)", timeout)}
	}
}

// recallLogger appends to $XDG_STATE_HOME/memoryd/recall.log, or discards
// when it cannot.
func recallLogger(e env) *slog.Logger {
	dir := filepath.Join(stateHome(e), "memoryd")
	if err := state.Ensure(dir); err == nil {
		if lf, err := logfile.Open(filepath.Join(dir, recallLogFile), recallLogMax); err == nil {
			return slog.New(slog.NewTextHandler(lf, nil))
		}
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// recallAnswer does the work: the prompt, the facts it matches, those the
// session already has dropped, the answer in the hook's format. note says
// what happened, for the log.
func recallAnswer(ctx context.Context, o *recallOptions, cfg config.Config) (out, note string, err error) {
	e := o.env
	in, err := recall.ReadInput(e.stdin)
	if err != nil {
		return "", "", err
	}
	if cfg.Recall.MaxBytes == 0 {
		return "", "off (recall.max_bytes is 0)", nil
	}
	words := recall.Words(in.Prompt)
	if len(words) == 0 {
		return "", "nothing to look for in the prompt", nil
	}
	f, err := readFolder(e, o.global)
	if err != nil {
		return "", "", err
	}
	cwd := cmp.Or(in.Cwd, workDir())
	slug := project.Slug(cwd)
	hits, err := findHits(ctx, f, search.Query{Words: strings.Join(words, " "), Project: slug, Limit: recallCandidates}, nil)
	if err != nil && !errors.Is(err, search.ErrNoWords) {
		return "", "", err
	}
	skip, err := sessionHas(f, cfg, slug, in.SessionID, o.projectOnly)
	if err != nil {
		return "", "", err
	}
	cands := recallFacts(f, hits, skip, cwd)
	cands = append(cands, teamRecall(ctx, f, cwd, strings.Join(words, " "), skip)...)
	text, shown := recall.Render(recall.Pick(in.Prompt, cands, skip), cfg.Recall.MaxBytes)
	if text == "" {
		return "", fmt.Sprintf("nothing relevant and new (%d hits, %d candidates)", len(hits), len(cands)), nil
	}
	files, err := recordRecalled(ctx, f, in.SessionID, shown)
	if err != nil {
		return "", "", err
	}
	out, err = recall.Output(o.format, in.Event, text)
	return out, "added " + strings.Join(files, ", "), err
}

// recordRecalled notes the facts shown as given to the session, and used.
func recordRecalled(ctx context.Context, f *folder, session string, shown []recall.Fact) ([]string, error) {
	var files []string
	for _, s := range shown {
		files = append(files, s.File)
	}
	if session != "" {
		if err := recall.RecordGiven(ctx, f.stateDir, session, files); err != nil {
			return nil, fmt.Errorf("record what the session was given: %w", err)
		}
	}
	f.countUse(usage.Recall, files...)
	return files, nil
}

// sessionHas says whether the session has a fact already: in the indexes
// it loaded, or given by an earlier prompt.
func sessionHas(f *folder, cfg config.Config, slug, session string, projectOnly bool) (func(file string) bool, error) {
	loaded, err := recall.Loaded(f.dir, slug, index.Budget{Lines: cfg.Index.MaxLines, Bytes: cfg.Index.MaxBytes}, projectOnly, f.indexHold())
	if err != nil {
		return nil, fmt.Errorf("read the session's index: %w", err)
	}
	var given recall.Sessions
	if session != "" {
		given = recall.ReadSessions(f.stateDir)
	}
	return func(file string) bool { return loaded[file] || given.Given(session, file) }, nil
}
