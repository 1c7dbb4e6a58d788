package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memoryd/memoryd/daemon"
	"github.com/memoryd/memoryd/extractor"
	"github.com/memoryd/memoryd/gitstore"
	"github.com/memoryd/memoryd/llm"
	"github.com/memoryd/memoryd/transcript"
)

func init() {
	register(&command{
		name:    "extract",
		args:    "[--dry-run] [--session ID]",
		summary: "Extract memories from agent sessions now: idle sessions with new messages, or the one given.",
		flags: func(fs *flag.FlagSet) {
			fs.Bool("dry-run", false, "print what would be written and change nothing, not even the watermarks")
			fs.String("session", "", "extract from this session only: its ID, or SOURCE/ID")
		},
		run: runExtract,
	})
}

// newExtraction wires the transcript sources and the extractor into the
// daemon. The transcript locations come from the command's environment
// (HOME, XDG_DATA_HOME, OPENCODE_DB, CLAUDE_CONFIG_DIR, CODEX_HOME) and
// extract.opencode_db.
func newExtraction(f *folder, c llm.Completer) (*daemon.Extraction, []io.Closer, error) {
	srcs := openSources(f, f.getenv)
	x := newExtractor(f, c, srcs, fmt.Sprintf("pid %d, memoryd run for %s", os.Getpid(), f.dir))
	return &daemon.Extraction{
		Sessions:  &sessionsAdapter{x: x, log: f.log.With("component", "extractor")},
		Extractor: extractorAdapter{x},
	}, []io.Closer{srcs}, nil
}

// transcriptLocations resolves where the agents keep their transcripts.
// extract.opencode_db (MEMORY_OPENCODE_DB) wins over OPENCODE_DB.
func transcriptLocations(f *folder, getenv func(string) string) transcript.Locations {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	db := f.cfg.Extract.OpenCodeDB
	if rest, ok := strings.CutPrefix(db, "~/"); ok && home != "" {
		db = filepath.Join(home, rest)
	}
	return transcript.DefaultLocations(home, func(k string) string {
		if k == "OPENCODE_DB" && db != "" {
			return db
		}
		return getenv(k)
	})
}

// openSources finds the transcript stores. The state folder is skipped as a
// second guard (besides the opencode provider's own database) so that the
// daemon's own LLM sessions are never extracted from.
func openSources(f *folder, getenv func(string) string) *extractor.Sources {
	return extractor.OpenSources(transcriptLocations(f, getenv), transcript.Options{
		SkipDirs: []string{f.stateDir},
		Logger:   f.log,
	})
}

func newExtractor(f *folder, c llm.Completer, srcs *extractor.Sources, owner string) *extractor.Extractor {
	var repo extractor.Repo
	if f.repo != nil {
		repo = f.repo
	}
	return extractor.New(extractor.Options{
		MemoryDir: f.dir,
		StateDir:  f.stateDir,
		Model:     f.cfg.Extract.Model,
		LockOwner: owner,
		Logger:    f.log,
	}, extractor.Deps{LLM: c, Repo: repo, Sources: srcs})
}

// foundSource is a transcript store that discovery found, for doctor.
type foundSource struct {
	Name  string
	Paths []string // the folders watched for it
}

// discoverSources lists the transcript stores extraction would read, and
// what could not be opened.
func discoverSources(f *folder, getenv func(string) string) ([]foundSource, error) {
	srcs := openSources(f, getenv)
	defer srcs.Close()
	var out []foundSource
	srcs.Each(func(s transcript.Source) {
		out = append(out, foundSource{Name: s.Name(), Paths: s.WatchPaths()})
	})
	return out, srcs.Err()
}

// sessionsAdapter is daemon.Sessions over the extractor's sources.
type sessionsAdapter struct {
	x   *extractor.Extractor
	log *slog.Logger

	mu      sync.Mutex
	lastErr string // logged once until it changes
}

// Changed lists the changed sessions. A source that fails is logged (once
// per distinct error) and asked again from the same point next time; the
// others' sessions are returned without an error, so one broken store does
// not stop extraction from the rest.
func (a *sessionsAdapter) Changed(ctx context.Context, since time.Time) ([]daemon.SessionInfo, error) {
	list, err := a.x.Changed(ctx, since)
	a.mu.Lock()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if msg != a.lastErr {
		if err != nil {
			a.log.Warn("list agent sessions", "err", err)
		} else {
			a.log.Info("listing agent sessions works again")
		}
		a.lastErr = msg
	}
	a.mu.Unlock()
	if err != nil && len(list) == 0 {
		return nil, err
	}
	out := make([]daemon.SessionInfo, 0, len(list))
	for _, s := range list {
		out = append(out, daemon.SessionInfo{
			Source: s.Source, ID: s.ID, Updated: s.Updated, Finished: s.Finished,
			Remember: transcript.WantsRemember(s.LastUserText),
		})
	}
	return out, nil
}

func (a *sessionsAdapter) WatchPaths() []string { return a.x.WatchPaths() }

// extractorAdapter is daemon.Extractor over the extractor.
type extractorAdapter struct{ x *extractor.Extractor }

func (a extractorAdapter) Extract(ctx context.Context, source, id string) (int, error) {
	res, err := a.x.Extract(ctx, source, id)
	if errors.Is(err, extractor.ErrNothingToDo) {
		return 0, fmt.Errorf("%w: %w", daemon.ErrNothingToDo, err)
	}
	return len(res.Changes), err
}

// busyPatience is how long `memoryd extract` waits for a folder another writer holds.
const busyPatience = 20 * time.Second

func runExtract(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return usageError{"unexpected arguments: " + fmt.Sprint(args)}
	}
	dry := flagString(fs, "dry-run") == "true"
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	if f.repo == nil && !dry {
		return errors.New(f.gitProblem())
	}
	client, err := needLLM(f)
	if err != nil {
		return err
	}
	if c, ok := client.(io.Closer); ok {
		defer c.Close()
	}
	srcs := openSources(f, e.getenv)
	defer srcs.Close()
	x := newExtractor(f, client, srcs, fmt.Sprintf("pid %d, memoryd extract", os.Getpid()))
	targets, err := extractTargets(ctx, x, srcs, flagString(fs, "session"))
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		fmt.Fprintln(e.stdout, noSessionsMessage(srcs))
		return nil
	}
	return extractAll(ctx, e.stdout, x, f.stateDir, targets, dry)
}

func noSessionsMessage(srcs *extractor.Sources) string {
	if names := srcs.Names(); len(names) > 0 {
		return "no idle sessions in " + strings.Join(names, ", ")
	}
	return "no transcript sources found (OpenCode, Claude Code, Codex)"
}

// extractTargets returns the sessions to extract: the one named, or every
// session whose newest message is a finished reply.
func extractTargets(ctx context.Context, x *extractor.Extractor, srcs *extractor.Sources, want string) ([]transcript.Session, error) {
	list, err := x.Changed(ctx, time.Time{})
	if err != nil && len(list) == 0 {
		return nil, err
	}
	if want == "" {
		var idle []transcript.Session
		for _, s := range list {
			if s.Finished {
				idle = append(idle, s)
			}
		}
		return idle, nil
	}
	var found []transcript.Session
	for _, s := range list {
		if s.ID == want || extractor.Key(s.Source, s.ID) == want {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 1:
		return found, nil
	case 0:
		if src, id, ok := strings.Cut(want, "/"); ok && slices.Contains(srcs.Names(), src) {
			// Not listed (deleted, or skipped): let the pass say what happened.
			return []transcript.Session{{Source: src, ID: id}}, nil
		}
		return nil, fmt.Errorf("no session %q in %s", want, strings.Join(srcs.Names(), ", "))
	}
	return nil, fmt.Errorf("session %q is in several sources; name it as SOURCE/ID", want)
}

// extractAll runs one pass per session and prints what each did. A failing
// session does not stop the others; the command then fails at the end.
func extractAll(ctx context.Context, w io.Writer, x *extractor.Extractor, stateDir string, targets []transcript.Session, dry bool) error {
	var failed, written, passes int
	for _, s := range targets {
		res, err := extractWithPatience(ctx, x, s.Source, s.ID, dry)
		key := extractor.Key(s.Source, s.ID)
		switch {
		case errors.Is(err, transcript.ErrSessionGone):
			fmt.Fprintf(w, "%s: the session no longer exists; its watermark is forgotten\n", key)
			continue
		case errors.Is(err, extractor.ErrNothingToDo):
			if len(targets) == 1 {
				fmt.Fprintf(w, "%s: nothing new since the last extraction\n", key)
			}
			continue
		case err != nil:
			failed++
			fmt.Fprintf(w, "%s: failed: %v\n", key, err)
			continue
		}
		passes++
		written += len(res.Changes)
		printExtraction(w, key, res, dry)
	}
	if !dry && written > 0 {
		// Files extracted by hand count as churn like the daemon's own.
		if _, err := daemon.UpdateCompactState(stateDir, time.Now(), func(s *daemon.CompactState) { s.Churn += written }); err != nil {
			fmt.Fprintf(w, "warning: could not add to compaction churn: %v\n", err)
		}
	}
	verb := "written"
	if dry {
		verb = "would be written (dry run: nothing changed)"
	}
	fmt.Fprintf(w, "%d session(s) extracted, %d file(s) %s\n", passes, written, verb)
	if failed > 0 {
		return fmt.Errorf("%d session(s) failed", failed)
	}
	return nil
}

// extractWithPatience retries a pass while the folder is locked by another
// writer (the daemon committing, say) for up to busyPatience.
func extractWithPatience(ctx context.Context, x *extractor.Extractor, source, id string, dry bool) (extractor.Result, error) {
	deadline := time.Now().Add(busyPatience)
	wait := 100 * time.Millisecond
	for {
		var res extractor.Result
		var err error
		if dry {
			res, err = x.DryRun(ctx, source, id)
		} else {
			res, err = x.Extract(ctx, source, id)
		}
		if !errors.Is(err, gitstore.ErrBusy) || time.Now().Add(wait).After(deadline) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

func printExtraction(w io.Writer, key string, res extractor.Result, dry bool) {
	fmt.Fprintf(w, "%s: %d new message(s), %d sent", key, res.Messages, res.Sent)
	if res.Redacted > 0 {
		fmt.Fprintf(w, ", %d secret(s) redacted", res.Redacted)
	}
	if res.Withheld > 0 {
		fmt.Fprintf(w, ", %d withheld as asked", res.Withheld)
	}
	if res.Commit != "" {
		fmt.Fprintf(w, ", commit %.12s", res.Commit)
	}
	fmt.Fprintln(w)
	for _, c := range res.Changes {
		verb := c.Action + "d"
		if dry {
			verb = "would " + c.Action
		}
		fmt.Fprintf(w, "  %s %s\n", verb, c.File)
		if dry {
			for line := range strings.Lines(string(c.Data)) {
				fmt.Fprintf(w, "    | %s", line)
			}
		}
	}
	for _, r := range res.Rejected {
		fmt.Fprintf(w, "  skipped %q: %s\n", r.Name, r.Reason)
	}
}

// transcriptCheck reports which transcript stores extraction reads.
func (d *doctor) transcriptCheck() {
	if !d.f.cfg.Extract.Enabled {
		d.ok("transcripts", "extraction is off (extract.enabled)")
		return
	}
	found, err := discoverSources(d.f, d.e.getenv)
	if err != nil {
		d.bad("transcripts", "a transcript store could not be opened: "+err.Error(),
			"check the file's permissions, or point extract.opencode_db (MEMORY_OPENCODE_DB) at the right database")
	}
	if len(found) == 0 {
		if err == nil {
			d.ok("transcripts", "no agent sessions yet (looked for OpenCode, Claude Code and Codex); extraction starts when one appears")
		}
		return
	}
	parts := make([]string, len(found))
	for i, s := range found {
		parts[i] = s.Name + " (" + strings.Join(s.Paths, ", ") + ")"
	}
	d.ok("transcripts", strings.Join(parts, "; "))
}
