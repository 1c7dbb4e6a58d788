package transcript

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// maxLine bounds the JSONL lines read; longer ones (a tool result holding a whole file) are
// skipped without being held in memory.
const maxLine = 8 << 20

// entry is what a format makes of one JSONL line.
type entry struct {
	msg      *Message // a user or assistant message (Mark and, if unset, Time are filled in)
	dir      string   // working directory, if the line says
	title    string   // session title, if the line says
	parent   string   // the parent session's ID, if the line says this is a sub-agent session
	finished *bool    // whether the agent now waits for the user, if the line says
	skip     bool     // a sub-agent line inside a main transcript
}

// jsonlFormat is one agent's transcript format.
type jsonlFormat interface {
	// sessionFile reports whether rel (slash path below the root) is a transcript.
	sessionFile(rel string) bool
	// parse reads one complete line of the file rel; unknown or damaged lines give the zero
	// entry.
	parse(rel string, line []byte) entry
	// watchDirs lists the folders below root to watch.
	watchDirs(root string) []string
}

// jsonlSource reads append-only JSONL transcripts: one file per session, below root.
// Watermarks are byte offsets just past a line; a last line without its newline is still being
// written and is never read.
type jsonlSource struct {
	name   string
	root   string
	format jsonlFormat
	opts   Options
	log    *slog.Logger

	mu    sync.Mutex // guards cache
	cache map[string]*fileSummary
}

// fileSummary is what Changed remembers of a file, so a grown file is read only from where it
// left off.
type fileSummary struct {
	size     int64
	modTime  time.Time
	offset   int64 // bytes summarised
	dir      string
	title    string
	parent   string
	finished bool
	lastUser string
}

func newJSONL(name, root string, format jsonlFormat, opts Options) *jsonlSource {
	return &jsonlSource{name: name, root: root, format: format, opts: opts, log: opts.logger(name),
		cache: map[string]*fileSummary{}}
}

// Name implements Source.
func (s *jsonlSource) Name() string { return s.name }

// WatchPaths implements Source.
func (s *jsonlSource) WatchPaths() []string { return s.format.watchDirs(s.root) }

// Close implements Source.
func (s *jsonlSource) Close() error { return nil }

// Changed implements Source. Files not modified since since are not opened.
func (s *jsonlSource) Changed(ctx context.Context, since time.Time) ([]Session, error) {
	var out []Session
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == s.root {
				return err
			}
			return nil // a folder vanished or is unreadable: skip it
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || !s.format.sessionFile(rel) {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.ModTime().Before(since) {
			return nil
		}
		sum, err := s.summary(rel, p, fi)
		if err != nil {
			s.log.Warn("read transcript", "file", rel, "err", err)
			return nil
		}
		if s.opts.skipped(sum.parent, sum.dir) {
			return nil
		}
		out = append(out, Session{Source: s.name, ID: rel, ParentID: sum.parent, Dir: sum.dir, Title: sum.title,
			Updated: fi.ModTime(), Finished: sum.finished, LastUserText: sum.lastUser})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list changed %s sessions: %w", s.name, err)
	}
	sortSessions(out)
	return out, nil
}

// summary brings the cached summary of a file up to date, reading only what was appended.
func (s *jsonlSource) summary(rel, path string, fi fs.FileInfo) (fileSummary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := s.cache[rel]
	if sum != nil && sum.size == fi.Size() && sum.modTime.Equal(fi.ModTime()) {
		return *sum, nil
	}
	if sum == nil || fi.Size() < sum.offset {
		sum = &fileSummary{} // new, or rewritten shorter: start over
	}
	f, err := os.Open(path)
	if err != nil {
		return fileSummary{}, err
	}
	defer f.Close()
	err = readLines(f, sum.offset, func(line []byte, end int64) bool {
		sum.offset = end
		e := s.format.parse(rel, line)
		if e.skip && !s.opts.IncludeSubagents {
			return true
		}
		sum.dir = cmpOr(e.dir, sum.dir)
		sum.title = cmpOr(e.title, sum.title)
		sum.parent = cmpOr(e.parent, sum.parent)
		if e.finished != nil {
			sum.finished = *e.finished
		}
		if e.msg != nil && e.msg.Role == "user" && !e.msg.Summary && e.msg.Text != "" {
			sum.lastUser = truncate(e.msg.Text, maxLastUserText)
		}
		return true
	})
	if err != nil {
		return fileSummary{}, err
	}
	sum.size, sum.modTime = fi.Size(), fi.ModTime()
	s.cache[rel] = sum
	return *sum, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Messages implements Source. Consecutive assistant lines (one reply written block by block, or
// a reply and its tool calls) come back as one Message marked at its last line.
func (s *jsonlSource) Messages(ctx context.Context, sessionID string, after Watermark, limit int) ([]Message, error) {
	path, err := s.path(sessionID)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s session %s: %w", s.name, sessionID, ErrSessionGone)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s session %s: %w", s.name, sessionID, err)
	}
	defer f.Close()
	start := after.Offset
	if fi, err := f.Stat(); err == nil && fi.Size() < start {
		s.log.Warn("transcript shrank below the watermark; reading it again from the start", "session", sessionID)
		start = 0
	}
	var out []Message
	err = readLines(f, start, func(line []byte, end int64) bool {
		if ctx.Err() != nil {
			return false
		}
		e := s.format.parse(sessionID, line)
		if e.msg == nil || (e.skip && !s.opts.IncludeSubagents) {
			return true
		}
		m := *e.msg
		m.Mark = Watermark{Offset: end}
		if !m.Time.IsZero() {
			m.Mark.Time = m.Time.UnixMilli()
		}
		if n := len(out); n > 0 && mergeable(out[n-1], m) {
			out[n-1] = merge(out[n-1], m)
			return true
		}
		if limit > 0 && len(out) == limit {
			return false
		}
		out = append(out, m)
		return true
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("read %s session %s: %w", s.name, sessionID, err)
	}
	return out, nil
}

func mergeable(a, b Message) bool {
	return a.Role == "assistant" && b.Role == "assistant" && !a.Summary && !b.Summary
}

func merge(a, b Message) Message {
	if b.Text != "" {
		a.Text = strings.TrimPrefix(a.Text+"\n"+b.Text, "\n")
	}
	a.Tools = append(a.Tools, b.Tools...)
	a.Mark = b.Mark
	return a
}

// path resolves a session ID to its file, refusing IDs that leave the root.
func (s *jsonlSource) path(sessionID string) (string, error) {
	if !filepath.IsLocal(filepath.FromSlash(sessionID)) || !s.format.sessionFile(sessionID) {
		return "", fmt.Errorf("read %s session %q: not a session id", s.name, sessionID)
	}
	return filepath.Join(s.root, filepath.FromSlash(sessionID)), nil
}

// readLines calls fn with each complete line from offset on (without its newline) and the offset
// just past it, until fn returns false. A last line without a newline is not complete. Lines
// longer than maxLine are skipped.
func readLines(f *os.File, offset int64, fn func(line []byte, end int64) bool) error {
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var buf []byte
	long := false
	pos := offset
	for {
		chunk, err := r.ReadSlice('\n')
		pos += int64(len(chunk))
		if !long && len(buf)+len(chunk) > maxLine {
			long, buf = true, nil
		}
		if !long {
			buf = append(buf, chunk...)
		}
		switch {
		case err == nil: // a complete line
			if !long && !fn(trimLine(buf), pos) {
				return nil
			}
			buf, long = buf[:0], false
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil // what remains has no newline yet
		default:
			return err
		}
	}
}

func trimLine(b []byte) []byte {
	b = b[:len(b)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
