package transcript

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The queries below pick single fields out of the JSON in SQLite (->>), so a tool part's output,
// which can be megabytes, never reaches Go. json_valid skips a row whose JSON is damaged instead
// of failing the whole query.

// msgFields are the ocMessage fields of message row m, after m.id and m.time_created.
const msgFields = `coalesce(m.data ->> '$.role', ''),
	(m.data ->> '$.time.completed') IS NOT NULL OR coalesce(json_type(m.data, '$.error'), 'null') <> 'null',
	coalesce(json_type(m.data, '$.summary'), '') = 'true'`

// changedQuery lists the sessions whose row changed at or after ?1 (Unix ms) with their last
// change: a session's time_updated does not move when its last message gets its error (seen with
// OpenCode 1.18), so the newest message's time_updated counts too, at one index seek per session.
// Changed passes since minus lateUpdateWindow, so only recently active sessions pay for the seek.
// Filtering and sorting happen in Go: in SQL the correlated subquery would run twice.
const changedQuery = `SELECT s.id, coalesce(s.parent_id, ''), s.directory, s.title, max(s.time_updated,
		coalesce((SELECT m.time_updated FROM message m WHERE m.session_id = s.id
			ORDER BY m.time_created DESC, m.id DESC LIMIT 1), 0))
	FROM session s WHERE s.time_updated >= ?1`

// lateUpdateWindow bounds how long after a session's row last changed its newest message may
// still change unnoticed by the row (an error after retries): Changed(since) finds such a late
// change only for sessions whose row changed within this window before since.
const lateUpdateWindow = 24 * time.Hour

// tailQuery lists a session's newest messages, newest first.
const tailQuery = `SELECT m.id, m.time_created, ` + msgFields + `
	FROM message m WHERE m.session_id = ?1 AND json_valid(m.data)
	ORDER BY m.time_created DESC, m.id DESC LIMIT ?2`

// existsQuery finds a session.
const existsQuery = `SELECT 1 FROM session WHERE id = ?1`

// metaQuery lists a session's messages after the watermark (?2, ?3), oldest first.
const metaQuery = `SELECT m.id, m.time_created, ` + msgFields + `
	FROM message m WHERE m.session_id = ?1 AND (m.time_created, m.id) > (?2, ?3) AND json_valid(m.data)
	ORDER BY m.time_created, m.id`

// partFields are the ocPart fields of part row p, after p.message_id. "CASE x WHEN" evaluates
// the type once per CASE.
var partFields = `p.data ->> '$.type',
	CASE p.data ->> '$.type' WHEN 'text' THEN coalesce(p.data ->> '$.text', '') ELSE '' END,
	CASE p.data ->> '$.type' WHEN 'text' THEN coalesce(p.data ->> '$.synthetic', 0) IS 1 ELSE 0 END,
	CASE p.data ->> '$.type' WHEN 'text' THEN coalesce(p.data ->> '$.ignored', 0) IS 1 ELSE 0 END,
	CASE p.data ->> '$.type' WHEN 'tool' THEN coalesce(p.data ->> '$.tool', '') ELSE '' END,
	CASE p.data ->> '$.type' WHEN 'tool' THEN substr(coalesce(` + inputExprs() + `, ''), 1, 512) ELSE '' END`

func inputExprs() string {
	var b []string
	for _, k := range toolInputKeys {
		b = append(b, fmt.Sprintf(`p.data ->> '$.state.input.%s'`, k))
	}
	return strings.Join(b, ", ")
}

// partsQuery lists the text and tool parts of a session's messages in the watermark range
// ((?2, ?3), (?4, ?5)], in message order and part order within a message.
var partsQuery = `SELECT p.message_id, ` + partFields + `
	FROM message m JOIN part p ON p.message_id = m.id
	WHERE m.session_id = ?1 AND (m.time_created, m.id) > (?2, ?3) AND (m.time_created, m.id) <= (?4, ?5)
		AND json_valid(m.data) AND json_valid(p.data) AND p.data ->> '$.type' IN ('text', 'tool')
	ORDER BY m.time_created, m.id, p.id`

// msgPartsQuery lists the text parts of one message.
var msgPartsQuery = `SELECT p.message_id, ` + partFields + `
	FROM part p WHERE p.message_id = ?1 AND json_valid(p.data) AND p.data ->> '$.type' = 'text'
	ORDER BY p.id`

// tailLength is how many of the newest messages Changed looks through for the last user text.
const tailLength = 12

// Changed implements Source.
func (s *OpenCode) Changed(ctx context.Context, since time.Time) ([]Session, error) {
	var out []Session
	err := s.read(ctx, func(tx *sql.Tx) error {
		from := sinceMillis(since)
		rows, err := tx.StmtContext(ctx, s.stmts.changed).QueryContext(ctx, max(0, from-lateUpdateWindow.Milliseconds()))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			ss := Session{Source: s.name}
			var updated int64
			if err := rows.Scan(&ss.ID, &ss.ParentID, &ss.Dir, &ss.Title, &updated); err != nil {
				return err
			}
			if updated < from || s.opts.skipped(ss.ParentID, ss.Dir) {
				continue
			}
			ss.Updated = time.UnixMilli(updated)
			out = append(out, ss)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		sortSessions(out)
		for i := range out {
			if err := s.tail(ctx, tx, &out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list changed opencode sessions: %w", err)
	}
	return out, nil
}

func sinceMillis(since time.Time) int64 {
	if since.IsZero() {
		return 0
	}
	return since.UnixMilli()
}

// tail fills in Finished and LastUserText from the session's newest messages.
func (s *OpenCode) tail(ctx context.Context, tx *sql.Tx, ss *Session) error {
	msgs, err := scanMessages(tx.StmtContext(ctx, s.stmts.tail).QueryContext(ctx, ss.ID, tailLength))
	if err != nil {
		return err
	}
	if len(msgs) > 0 {
		ss.Finished = msgs[0].Role == "assistant" && msgs[0].Done
	}
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		parts, err := scanParts(tx.StmtContext(ctx, s.stmts.msgParts).QueryContext(ctx, m.ID))
		if err != nil {
			return err
		}
		if t := userText(parts[m.ID]); t != "" {
			ss.LastUserText = t
			break
		}
	}
	return nil
}

func scanMessages(rows *sql.Rows, err error) ([]ocMessage, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ocMessage
	for rows.Next() {
		var m ocMessage
		if err := rows.Scan(&m.ID, &m.Created, &m.Role, &m.Done, &m.Summary); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// scanParts groups parts by message id.
func scanParts(rows *sql.Rows, err error) (map[string][]ocPart, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]ocPart{}
	for rows.Next() {
		var id string
		var p ocPart
		if err := rows.Scan(&id, &p.Type, &p.Text, &p.Synthetic, &p.Ignored, &p.Tool, &p.Input); err != nil {
			return nil, err
		}
		out[id] = append(out[id], p)
	}
	return out, rows.Err()
}

// Messages implements Source.
func (s *OpenCode) Messages(ctx context.Context, sessionID string, after Watermark, limit int) ([]Message, error) {
	var out []Message
	err := s.read(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.StmtContext(ctx, s.stmts.exists).QueryRowContext(ctx, sessionID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrSessionGone
		}
		if err != nil {
			return err
		}
		metas, err := scanMessages(tx.StmtContext(ctx, s.stmts.meta).QueryContext(ctx, sessionID, after.Time, after.ID))
		if err != nil {
			return err
		}
		metas = metas[:settledCount(metas)]
		if len(metas) == 0 {
			return nil
		}
		last := metas[len(metas)-1]
		rows, err := tx.StmtContext(ctx, s.stmts.parts).QueryContext(ctx, sessionID, after.Time, after.ID, last.Created, last.ID)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = assemble(rows, metas, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read opencode session %s: %w", sessionID, err)
	}
	return out, nil
}

// assemble walks the metadata of settled messages and the part rows (same order) together.
func assemble(rows *sql.Rows, metas []ocMessage, limit int) ([]Message, error) {
	var out []Message
	var parts []ocPart
	i := 0
	flush := func(upTo string) {
		// Emit every message before the one whose parts come next (those have no more parts).
		for ; i < len(metas) && metas[i].ID != upTo; i++ {
			if m, ok := buildMessage(metas[i], parts); ok {
				out = append(out, m)
			}
			parts = parts[:0]
			if limit > 0 && len(out) >= limit {
				i = len(metas)
			}
		}
	}
	for rows.Next() {
		var id string
		var p ocPart
		if err := rows.Scan(&id, &p.Type, &p.Text, &p.Synthetic, &p.Ignored, &p.Tool, &p.Input); err != nil {
			return nil, err
		}
		flush(id)
		if i >= len(metas) {
			break
		}
		parts = append(parts, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	flush("")
	return out, nil
}

// sortSessions orders sessions by Updated, then ID.
func sortSessions(ss []Session) {
	slices.SortFunc(ss, func(a, b Session) int {
		return cmp.Or(a.Updated.Compare(b.Updated), strings.Compare(a.ID, b.ID))
	})
}
