package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/logfile"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/recall"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/usage"
)

func init() {
	register(&command{
		name:    "recall",
		args:    "[--project-only] [--format=auto|json|text]",
		summary: "Agent hook: read the prompt's JSON on stdin, print the few relevant facts the session has not seen (nothing on any error).",
		flags: func(fs *flag.FlagSet) {
			fs.Bool("project-only", false, "the session loaded MEMORY.md itself and `memoryd context --project-only` (Codex, OpenCode); default: `memoryd context` (Claude Code)")
			enumFlag(fs, "format", "auto", []string{"auto", "json", "text"}, "`FORMAT` of the answer: json (hookSpecificOutput.additionalContext, for Claude Code and Codex), text, or auto (json when the input names a hook event)")
		},
		run: runRecall,
	})
}

// Files of recall: the sessions' record in the memory folder's state
// folder, and the log in memoryd's own state folder (a broken configuration
// names no memory folder, and its reason must still be written down).
const (
	recallSessionsFile = "recall-sessions.json"
	recallLogFile      = "recall.log"
	recallLogMax       = 256 << 10
	recallInputMax     = 1 << 20
)

// recallCandidates is how many search hits recall weighs.
const recallCandidates = 12

// runRecall is the per-prompt hook (`memoryd recall`). It fails open: any
// error, a broken configuration, an unreadable folder or the time-out
// ends it with exit 0 and nothing printed, the reason in recall.log — a
// memory that cannot answer must never stop an agent's prompt.
func runRecall(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	start := time.Now()
	log := recallLogger(e)
	timeout := config.Default().Recall.Timeout.D()
	cfg, _, cfgErr := loadConfig(e, fs)
	if cfgErr == nil {
		timeout = cfg.Recall.Timeout.D()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type answer struct {
		out  string
		note string
		err  error
	}
	done := make(chan answer, 1)
	// The work runs beside the clock so that a call that ignores ctx (a
	// lock, a slow disk) cannot hold the prompt past the time-out; the
	// process ends right after, taking it along.
	go func() {
		if cfgErr != nil {
			done <- answer{err: cfgErr}
			return
		}
		out, note, err := recallAnswer(ctx, e, fs, cfg)
		done <- answer{out, note, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		a.err = fmt.Errorf("timed out after %s (recall.timeout)", timeout)
	}
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
func recallAnswer(ctx context.Context, e env, fs *flag.FlagSet, cfg config.Config) (out, note string, err error) {
	data, err := io.ReadAll(io.LimitReader(e.stdin, recallInputMax))
	if err != nil {
		return "", "", fmt.Errorf("read the hook's input: %w", err)
	}
	in, err := recall.ParseInput(data)
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
	f, err := readFolder(e, fs)
	if err != nil {
		return "", "", err
	}
	cwd := in.Cwd
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return "", "", err
		}
	}
	slug := project.Slug(cwd)
	hits, err := search.Find(ctx, f.stateDir, f.dir, search.Query{Words: strings.Join(words, " "), Project: slug, Limit: recallCandidates, Embedder: embedder(f)})
	if err != nil && !errors.Is(err, search.ErrNoWords) {
		return "", "", err
	}
	loaded, err := sessionLoaded(f.dir, slug, index.Budget{Lines: cfg.Index.MaxLines, Bytes: cfg.Index.MaxBytes}, flagBool(fs, "project-only"), f.indexHold())
	if err != nil {
		return "", "", fmt.Errorf("read the session's index: %w", err)
	}
	var given recall.Sessions
	if in.SessionID != "" {
		// An unreadable record is as good as none: recordGiven starts
		// a new one.
		state.ReadJSON(f.stateDir, recallSessionsFile, &given)
	}
	skip := func(file string) bool { return loaded[file] || given.Given(in.SessionID, file) }
	var cands []recall.Fact
	chk := cite.NewChecker(cwd)
	g := f.gate()
	for _, h := range hits {
		if skip(h.File) {
			continue
		}
		data, err := index.ReadPlain(f.dir, h.File)
		if err != nil {
			continue // gone since the index saw it
		}
		m, err := index.Parse(h.File, data)
		if err != nil {
			continue
		}
		// The gate on the way out: no secret, no planted instruction.
		if fact, ok := recallFact(g, m, cite.Marker(chk.Check(m).Changes)); ok {
			cands = append(cands, fact)
		}
	}
	cands = append(cands, teamRecall(ctx, f, cwd, strings.Join(words, " "), skip)...)
	text, shown := recall.Render(recall.Pick(in.Prompt, cands, skip), cfg.Recall.MaxBytes)
	if text == "" {
		return "", fmt.Sprintf("nothing relevant and new (%d hits, %d candidates)", len(hits), len(cands)), nil
	}
	var files []string
	for _, s := range shown {
		files = append(files, s.File)
	}
	if in.SessionID != "" {
		if err := recordGiven(ctx, f.stateDir, in.SessionID, files); err != nil {
			return "", "", fmt.Errorf("record what the session was given: %w", err)
		}
	}
	f.countUse(usage.Recall, files...)
	note = "added " + strings.Join(files, ", ")
	out, err = recallOutput(flagString(fs, "format"), in.Event, text)
	return out, note, err
}

// recallOutput is text in the format the caller reads: Claude Code and
// Codex take hookSpecificOutput.additionalContext (plain text works too,
// but JSON is unambiguous); the OpenCode plugin takes text.
func recallOutput(format, event, text string) (string, error) {
	// The OpenCode plugin reads the text, a person may run recall in a
	// terminal, and a model reads both forms: no control byte of a fact's
	// text reaches any of them.
	text = plainText(text)
	if format == "auto" {
		format = "text"
		if event != "" {
			format = "json"
		}
	}
	switch format {
	case "text":
		return text, nil
	case "json":
		if event == "" {
			event = "UserPromptSubmit"
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		err := enc.Encode(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": text}})
		return b.String(), err
	}
	return "", fmt.Errorf("--format %q: want auto, json or text", format)
}

// indexLink matches an index line's link to a fact file.
var indexLink = regexp.MustCompile(`\]\(([^()\s]+\.md)\)`)

// sessionLoaded returns the facts a session in project slug loaded at its
// start: those listed in what `memoryd context` shows there, or with
// projectOnly in MEMORY.md and what `memoryd context --project-only` shows.
func sessionLoaded(dir, slug string, b index.Budget, projectOnly bool, hold func(*index.Memory) bool) (map[string]bool, error) {
	text, err := contextText(dir, slug, b, projectOnly, hold)
	if err != nil {
		return nil, err
	}
	if projectOnly {
		global, err := index.ReadPlain(dir, index.IndexFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		text = append(append(global, '\n'), text...)
	}
	loaded := map[string]bool{}
	for _, m := range indexLink.FindAllSubmatch(text, -1) {
		loaded[string(m[1])] = true
	}
	return loaded, nil
}

// recordGiven adds files to session id's record, under a lock so that two
// hooks at once keep both.
func recordGiven(ctx context.Context, stateDir, id string, files []string) error {
	var lock *state.Lock
	for {
		l, err := state.TryLock(stateDir, recallSessionsFile+".lock", state.Owner("recall"))
		if err == nil {
			lock = l
			break
		}
		if !errors.Is(err, state.ErrLocked) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(5 * time.Millisecond):
		}
	}
	defer lock.Unlock()
	var s recall.Sessions
	if err := state.ReadJSON(stateDir, recallSessionsFile, &s); err != nil && !state.IsNotExist(err) {
		s = recall.Sessions{} // unreadable: start again rather than never record
	}
	now := time.Now()
	s.Add(id, files, now)
	s.Prune(now)
	return state.WriteJSON(stateDir, recallSessionsFile, s)
}
