package transcript

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// NewOpenCodeLegacy reads the JSON files OpenCode kept before it moved to SQLite (1.1 and
// older); dir is …/opencode/storage:
//
//	session/<project id>/<session id>.json   {"id","projectID","parentID"?,"directory","title","time":{"created","updated"}}
//	message/<session id>/<message id>.json   the message JSON (see ocMessage) with "id" and "sessionID"
//	part/<message id>/<part id>.json         the part JSON with "id", "sessionID" and "messageID"
//
// Messages, watermarks and the settled rule are as for the database. A message file that does
// not parse (being written, or damaged) is passed over.
func NewOpenCodeLegacy(dir string, opts Options) Source {
	return &legacySource{dir: dir, opts: opts, log: opts.logger("opencode-legacy")}
}

type legacySource struct {
	dir  string
	opts Options
	log  *slog.Logger
}

func (s *legacySource) Name() string { return "opencode-legacy" }

func (s *legacySource) Close() error { return nil }

// WatchPaths lists storage/session and its project folders, where every session update rewrites
// the session's file, and storage/message, where each new session gets a folder.
func (s *legacySource) WatchPaths() []string {
	dirs := []string{filepath.Join(s.dir, "session"), filepath.Join(s.dir, "message")}
	ents, _ := os.ReadDir(dirs[0])
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(dirs[0], e.Name()))
		}
	}
	return dirs
}

type legacySession struct {
	ID        string `json:"id"`
	ParentID  string `json:"parentID"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Time      struct {
		Updated int64 `json:"updated"`
	} `json:"time"`
}

type legacyMessage struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	Time struct {
		Created   int64 `json:"created"`
		Completed int64 `json:"completed"`
	} `json:"time"`
	Error   json.RawMessage `json:"error"`
	Summary json.RawMessage `json:"summary"`
}

type legacyPart struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`
	Tool      string `json:"tool"`
	State     struct {
		Input toolInput `json:"input"`
	} `json:"state"`
}

// Changed implements Source. A session's last change is the newest of its file, its time.updated
// and its newest message file.
func (s *legacySource) Changed(ctx context.Context, since time.Time) ([]Session, error) {
	files, err := filepath.Glob(filepath.Join(s.dir, "session", "*", "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list changed opencode-legacy sessions: %w", err)
	}
	var out []Session
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var ls legacySession
		fi, err := readJSON(f, &ls)
		if err != nil || ls.ID == "" || s.opts.skipped(ls.ParentID, ls.Directory) {
			continue
		}
		updated := latest(fi.ModTime(), time.UnixMilli(ls.Time.Updated))
		msgs := s.messageFiles(ls.ID)
		if len(msgs) > 0 {
			if mfi, err := os.Stat(msgs[len(msgs)-1]); err == nil {
				updated = latest(updated, mfi.ModTime())
			}
		}
		if updated.Before(since) {
			continue
		}
		sess := Session{Source: s.Name(), ID: ls.ID, ParentID: ls.ParentID, Dir: ls.Directory, Title: ls.Title, Updated: updated}
		s.tail(&sess, msgs)
		out = append(out, sess)
	}
	sortSessions(out)
	return out, nil
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// messageFiles lists a session's message files, sorted by name (OpenCode's ids grow with time).
func (s *legacySource) messageFiles(sessionID string) []string {
	files, _ := filepath.Glob(filepath.Join(s.dir, "message", sessionID, "*.json"))
	slices.Sort(files)
	return files
}

// tail fills in Finished and LastUserText from the newest messages.
func (s *legacySource) tail(sess *Session, files []string) {
	for i := len(files) - 1; i >= 0 && i >= len(files)-tailLength; i-- {
		m, ok := readLegacyMessage(files[i])
		if !ok {
			continue
		}
		if i == len(files)-1 {
			sess.Finished = m.Role == "assistant" && m.Done
		}
		if m.Role != "user" {
			continue
		}
		if parts, err := s.parts(m.ID); err == nil {
			if t := userText(parts); t != "" {
				sess.LastUserText = t
				return
			}
		}
	}
}

func readLegacyMessage(file string) (ocMessage, bool) {
	var lm legacyMessage
	if _, err := readJSON(file, &lm); err != nil || lm.ID == "" {
		return ocMessage{}, false
	}
	return ocMessage{
		ID:      lm.ID,
		Created: lm.Time.Created,
		Role:    lm.Role,
		Done:    lm.Time.Completed != 0 || (len(lm.Error) > 0 && string(lm.Error) != "null"),
		Summary: string(lm.Summary) == "true",
	}, true
}

// Messages implements Source.
func (s *legacySource) Messages(ctx context.Context, sessionID string, after Watermark, limit int) ([]Message, error) {
	if !filepath.IsLocal(sessionID) || strings.ContainsAny(sessionID, `/\`) {
		return nil, fmt.Errorf("read opencode-legacy session %q: not a session id", sessionID)
	}
	if found, _ := filepath.Glob(filepath.Join(s.dir, "session", "*", sessionID+".json")); len(found) == 0 {
		return nil, fmt.Errorf("read opencode-legacy session %s: %w", sessionID, ErrSessionGone)
	}
	var metas []ocMessage
	for _, f := range s.messageFiles(sessionID) {
		m, ok := readLegacyMessage(f)
		if !ok {
			continue // being written, or damaged
		}
		if m.Created > after.Time || (m.Created == after.Time && m.ID > after.ID) {
			metas = append(metas, m)
		}
	}
	slices.SortFunc(metas, func(a, b ocMessage) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), strings.Compare(a.ID, b.ID))
	})
	metas = metas[:settledCount(metas)]
	var out []Message
	for _, m := range metas {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		parts, err := s.parts(m.ID)
		if err != nil {
			return nil, fmt.Errorf("read opencode-legacy session %s: %w", sessionID, err)
		}
		if msg, ok := buildMessage(m, parts); ok {
			out = append(out, msg)
			if limit > 0 && len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// parts reads a message's parts in id order. A missing folder is a message without parts.
func (s *legacySource) parts(messageID string) ([]ocPart, error) {
	files, err := filepath.Glob(filepath.Join(s.dir, "part", messageID, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var out []ocPart
	for _, f := range files {
		var lp legacyPart
		if _, err := readJSON(f, &lp); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		out = append(out, ocPart{Type: lp.Type, Text: lp.Text, Synthetic: lp.Synthetic, Ignored: lp.Ignored,
			Tool: lp.Tool, Input: lp.State.Input.short()})
	}
	return out, nil
}

func readJSON(file string, v any) (fs.FileInfo, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if !decodeLoose(b, v) {
		return nil, fmt.Errorf("%s: not JSON", filepath.Base(file))
	}
	return os.Stat(file)
}
