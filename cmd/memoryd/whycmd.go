package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/extractor"
	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

func newCmdWhy(a *app) *cobra.Command {
	cmd, o := newFactCmd(a, "why NAME|FILE [--json]", "Show where a fact came from: its sources, the commits that touched it, the transcript it was drawn from.", runWhy)
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON: the fact, its file, sources, commits and transcript excerpts")
	return cmd
}

func runWhy(ctx context.Context, o *factOptions) error {
	e := o.env
	if handled, err := teamWhyShow(ctx, o, "why"); handled {
		return err
	}
	m, data, f, err := findFact(e, o.global, o.name)
	if err != nil {
		return err
	}
	note, data := f.gate().Shown(m, data) // the gate: a secret line [REDACTED]
	if o.json {
		return writeWhyJSON(ctx, e, f, m, data)
	}
	fmt.Fprintf(e.stdout, "# %s\n%s", m.File, facts.SupersededLine(m))
	if note != "" {
		fmt.Fprintf(e.stdout, "# %s\n", note)
	}
	fmt.Fprintf(e.stdout, "%s\n", data)
	facts.PrintSources(e.stdout, m.Sources)
	if err := printCommits(ctx, e.stdout, f, m.File); err != nil {
		return err
	}
	if !slices.ContainsFunc(m.Sources, func(s index.Source) bool { return s.Session != "" }) {
		return nil // no transcript to show
	}
	// Opening the transcript stores is the daemon's news, not this
	// command's: keep the warnings, not the notices.
	f.log = newLogger(e.logWriter(), "warn")
	return printExcerpts(ctx, e.stdout, f, m.Sources)
}

// whyJSON is what `memoryd why --json` prints.
type whyJSON struct {
	Fact    facts.View         `json:"fact"`
	Content string             `json:"content"`
	Sources []facts.SourceView `json:"sources"`
	// Commits touched the file, newest first, following renames; empty,
	// with CommitsProblem saying why, when there is no repository.
	Commits        []facts.CommitView        `json:"commits"`
	CommitsProblem string                    `json:"commitsProblem,omitempty"`
	Transcripts    []extractor.SourceExcerpt `json:"transcripts"`
}

func writeWhyJSON(ctx context.Context, e env, f *folder, m *index.Memory, data []byte) error {
	out := whyJSON{Fact: facts.ViewOf(m, cite.NewChecker(workDir())), Content: string(data), Sources: facts.SourceViews(m.Sources), Commits: []facts.CommitView{}, Transcripts: []extractor.SourceExcerpt{}}
	if f.repo == nil {
		out.CommitsProblem = f.gitProblem()
	} else {
		log, err := f.repo.FileLog(ctx, m.File, 50)
		if err != nil {
			return err
		}
		for _, c := range log {
			out.Commits = append(out.Commits, facts.CommitView{Hash: c.Hash, At: c.When, Subject: c.Subject})
		}
	}
	if slices.ContainsFunc(m.Sources, func(s index.Source) bool { return s.Session != "" }) {
		f.log = newLogger(e.logWriter(), "warn")
		out.Transcripts = append(out.Transcripts, excerpts(ctx, f, m.Sources)...)
	}
	return writeJSON(e.stdout, out)
}

// printCommits lists the commits that touched the file, following renames.
func printCommits(ctx context.Context, w io.Writer, f *folder, file string) error {
	if f.repo == nil {
		fmt.Fprintln(w, "commits: none ("+f.gitProblem()+")")
		return nil
	}
	log, err := f.repo.FileLog(ctx, file, 50)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "commits:")
	for _, c := range log {
		fmt.Fprintf(w, "  %s %s  %s\n", gitstore.Short(c.Hash), c.When.Local().Format("2006-01-02 15:04"), c.Subject)
	}
	if len(log) == 0 {
		fmt.Fprintln(w, "  none yet")
	}
	return nil
}

// printExcerpts shows, for each source that names a session, the part of
// the transcript the fact was drawn from, redacted as it was sent.
func printExcerpts(ctx context.Context, w io.Writer, f *folder, sources []index.Source) error {
	for _, t := range excerpts(ctx, f, sources) {
		if t.Problem != "" {
			fmt.Fprintf(w, "transcript %s %s: %s\n", t.Agent, t.Session, t.Problem)
			continue
		}
		fmt.Fprintf(w, "transcript %s %s (as sent to the model):\n", t.Agent, t.Session)
		for line := range strings.Lines(t.Excerpt) {
			fmt.Fprintf(w, "  | %s", line)
		}
	}
	return nil
}

// excerpts are the transcript excerpts of the sources that name a session.
func excerpts(ctx context.Context, f *folder, sources []index.Source) []extractor.SourceExcerpt {
	srcs := openSources(f)
	defer srcs.Close()
	return newExtractor(f, nil, srcs, "memoryd why").Excerpts(ctx, sources)
}
