package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/extractor"
	memfolder "github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/transcript"
)

type extractOptions struct {
	*app
	dryRun  bool
	session string
	since   string
	json    bool
}

func newCmdExtract(a *app) *cobra.Command {
	o := &extractOptions{app: a}
	cmd := &cobra.Command{
		Use:   "extract [--dry-run] [--session ID] [--since AGE|DATE|all]",
		Short: "Extract memories from agent sessions now: idle sessions with new messages, or the one given.",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runExtract(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "print what would be written and change nothing, not even the watermarks")
	cmd.Flags().StringVar(&o.session, "session", "", "extract from this session only: its `ID`, or SOURCE/ID")
	cmd.Flags().StringVar(&o.since, "since", "", "take the idle sessions active since `AGE|DATE` (30d, 2026-11-01, all) instead of extract.since (install: since memoryd first ran here); with --dry-run, see what it would cost first")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON: each session's pass and the totals (no progress)")
	return cmd
}

// busyPatience is how long `memoryd extract` waits for a folder another writer holds.
const busyPatience = 20 * time.Second

func runExtract(ctx context.Context, o *extractOptions) error {
	f, err := extractFolder(o)
	if err != nil {
		return err
	}
	client, done, err := needLLM(f)
	if err != nil {
		return err
	}
	defer done()
	srcs := openSources(f)
	defer srcs.Close()
	x := newExtractor(f, client, srcs, "memoryd extract")
	targets, err := x.Targets(ctx, o.session)
	if err != nil {
		return err
	}
	return reportExtraction(ctx, o, x, f.stateDir, targets, noSessionsMessage(srcs))
}

// extractFolder opens the folder extract writes, with --since applied.
func extractFolder(o *extractOptions) (*folder, error) {
	e := o.env
	f, err := openFolder(e, o.global)
	if err != nil {
		return nil, err
	}
	if err := memfolder.Suitable(f.dir, e.getenv("HOME")); err != nil {
		return nil, err
	}
	if since := o.since; since != "" {
		if _, err := config.Horizon(since, time.Time{}, time.Now()); err != nil {
			return nil, usageError{"--since: " + err.Error()}
		}
		f.cfg.Extract.Since = since
	}
	if f.repo == nil && !o.dryRun {
		return nil, errors.New(f.gitProblem())
	}
	return f, nil
}

// reportExtraction extracts targets and prints what each pass did, as text
// or (--json) as one JSON document; none is what it says without targets.
func reportExtraction(ctx context.Context, o *extractOptions, x *extractor.Extractor, stateDir string, targets []transcript.Session, none string) error {
	e, dry := o.env, o.dryRun
	if !o.json {
		if len(targets) == 0 {
			fmt.Fprintln(e.stdout, none)
			return nil
		}
		return extractAll(ctx, e.stdout, x, stateDir, targets, dry, nil)
	}
	j := extractor.NewReport(dry)
	if len(targets) == 0 {
		j.Note = none
	}
	err := extractAll(ctx, io.Discard, x, stateDir, targets, dry, j)
	if werr := writeJSON(e.stdout, j); werr != nil {
		return werr
	}
	return err
}

func noSessionsMessage(srcs *transcript.Sources) string {
	if names := srcs.Names(); len(names) > 0 {
		return "no idle sessions in " + strings.Join(names, ", ")
	}
	return "no transcript sources found (OpenCode, Claude Code, Codex)"
}

// extractAll runs one pass per session (Extractor.ExtractAll) and prints
// what each did. With j set, each pass and the totals are recorded there
// as well (w is then io.Discard).
func extractAll(ctx context.Context, w io.Writer, x *extractor.Extractor, stateDir string, targets []transcript.Session, dry bool, j *extractor.Report) error {
	prog := newProgress(w, "extracting: ")
	t, err := x.ExtractAll(ctx, targets, extractor.AllOptions{Dry: dry, Patience: busyPatience,
		Step: func(i int, key string, t extractor.Totals) {
			prog.step("session %d of %d (%s), %d file(s) written, %d tokens so far", i+1, len(targets), key, t.Written, t.Tokens)
		},
		Pass: func(key string, res extractor.Result, err error) bool {
			prog.clear()
			if j != nil {
				j.Add(key, res, err)
			}
			return extractor.PrintPass(w, key, res, err, dry, len(targets) == 1)
		}})
	prog.clear()
	summarizeExtraction(w, stateDir, t.Passes, t.Written, t.Tokens, dry)
	if j != nil {
		j.Passes, j.Written, j.Tokens = t.Passes, t.Written, t.Tokens
	}
	return err
}

// summarizeExtraction records the files written as churn (extracted by
// hand, they count like the daemon's own) and prints the totals.
func summarizeExtraction(w io.Writer, stateDir string, passes, written, tokens int, dry bool) {
	if !dry && written > 0 {
		if _, err := state.UpdateCompaction(stateDir, time.Now(), state.AddChurn(written)); err != nil {
			fmt.Fprintf(w, "warning: could not add to compaction churn: %v\n", err)
		}
	}
	verb := "written"
	if dry {
		verb = "would be written (dry run: nothing changed)"
	}
	fmt.Fprintf(w, "%d session(s) extracted, %d file(s) %s, %d tokens\n", passes, written, verb, tokens)
}
