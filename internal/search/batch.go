package search

import (
	"context"
	"database/sql"
	"strings"
)

// batchRows is how many rows one statement of a rowBatch inserts: a first
// build writes 10,000 facts and tens of thousands of terms, and each
// statement executed costs far more than a row of it.
const batchRows = 64

// rowBatch inserts rows with one statement per batchRows rows. Only the
// goroutine of its transaction uses it.
type rowBatch struct {
	ctx  context.Context
	tx   *sql.Tx
	head string // "INSERT … VALUES "
	row  string // "(?, ?, …)"
	full *sql.Stmt
	args []any
	n    int
}

// newRowBatch prepares head (an INSERT up to VALUES) for rows of cols
// values each.
func newRowBatch(ctx context.Context, tx *sql.Tx, head string, cols int) *rowBatch {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	return &rowBatch{ctx: ctx, tx: tx, head: head, row: row}
}

// add queues one row, writing the batch when it is full.
func (b *rowBatch) add(vals ...any) error {
	b.args = append(b.args, vals...)
	b.n++
	if b.n < batchRows {
		return nil
	}
	return b.flush()
}

// flush writes the queued rows.
func (b *rowBatch) flush() error {
	if b.n == 0 {
		return nil
	}
	var err error
	if b.n == batchRows {
		if b.full == nil {
			b.full, err = b.tx.PrepareContext(b.ctx, b.sql(batchRows))
			if err != nil {
				return err
			}
		}
		_, err = b.full.ExecContext(b.ctx, b.args...)
	} else {
		_, err = b.tx.ExecContext(b.ctx, b.sql(b.n), b.args...)
	}
	b.args, b.n = b.args[:0], 0
	return err
}

func (b *rowBatch) sql(rows int) string {
	return b.head + strings.TrimSuffix(strings.Repeat(b.row+", ", rows), ", ")
}

// close releases the prepared statement.
func (b *rowBatch) close() {
	if b.full != nil {
		b.full.Close()
	}
}
