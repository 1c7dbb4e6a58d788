package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/extractor"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/transcript"
)

func init() {
	register(&command{
		name:    "why",
		args:    "NAME|FILE",
		summary: "Show where a fact came from: its sources, the commits that touched it, the transcript it was drawn from.",
		run:     runWhy,
	})
}

func runWhy(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	m, data, f, err := findFact(e, fs, args)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "# %s\n%s\n", m.File, data)
	printSources(e.stdout, m.Sources)
	if err := printCommits(ctx, e.stdout, f, m.File); err != nil {
		return err
	}
	if !slices.ContainsFunc(m.Sources, func(s index.Source) bool { return s.Session != "" }) {
		return nil // no transcript to show
	}
	// Opening the transcript stores is the daemon's news, not this
	// command's: keep the warnings, not the notices.
	f.log = newLogger(e.stderr, "warn")
	return printExcerpts(ctx, e.stdout, f, m.Sources)
}

func printSources(w io.Writer, sources []index.Source) {
	if len(sources) == 0 {
		fmt.Fprintln(w, "sources: none recorded (written by hand, or before memoryd recorded sources)")
		return
	}
	fmt.Fprintln(w, "sources:")
	for _, s := range sources {
		parts := []string{s.Agent}
		for _, kv := range [][2]string{{"session", s.Session}, {"messages", s.Messages}, {"at", s.At}, {"cwd", s.Cwd}, {"host", s.Host}} {
			if kv[1] != "" {
				parts = append(parts, kv[0]+" "+kv[1])
			}
		}
		fmt.Fprintf(w, "  - %s\n", strings.Join(parts, ", "))
	}
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
		fmt.Fprintf(w, "  %s %s  %s\n", short(c.Hash), c.When.Local().Format("2006-01-02 15:04"), c.Subject)
	}
	if len(log) == 0 {
		fmt.Fprintln(w, "  none yet")
	}
	return nil
}

// printExcerpts shows, for each source that names a session, the part of
// the transcript the fact was drawn from, redacted as it was sent.
func printExcerpts(ctx context.Context, w io.Writer, f *folder, sources []index.Source) error {
	srcs := openSources(f)
	defer srcs.Close()
	x := newExtractor(f, nil, srcs, "memoryd why")
	for _, s := range sources {
		if s.Session == "" {
			continue
		}
		text, err := x.Excerpt(ctx, s)
		switch {
		case errors.Is(err, transcript.ErrSessionGone):
			fmt.Fprintf(w, "transcript %s %s: the session is gone (deleted from %s's history)\n", s.Agent, s.Session, s.Agent)
		case errors.Is(err, extractor.ErrNoTranscript):
			fmt.Fprintf(w, "transcript %s %s: no %s transcripts on this machine\n", s.Agent, s.Session, s.Agent)
		case err != nil:
			fmt.Fprintf(w, "transcript %s %s: %v\n", s.Agent, s.Session, err)
		default:
			fmt.Fprintf(w, "transcript %s %s (as sent to the model):\n", s.Agent, s.Session)
			for line := range strings.Lines(text) {
				fmt.Fprintf(w, "  | %s", line)
			}
		}
	}
	return nil
}
