package folder

import "context"

// A dry run is a transaction that records instead of writing, so that a
// command's --dry-run runs the very code its real run does (chezmoi's
// DryRunSystem is the pattern). BeginDryRun takes no lock and checks no
// precondition of git's, as the dry runs before it did; Write, Remove and
// Restore re-check the file as a real transaction does, then record the
// bytes; Commit records the message; CommitPending commits nothing; Merged
// rescans nothing. Nothing touches the folder, the indexes, the search
// index or git. Check (and so Write and Remove) sees a file the dry run
// recorded as recorded, so that a plan's later steps meet its earlier
// ones as in the real run; Snapshot is the folder as Begin scanned it.

// Planned is one file a dry run would have written, or removed (Data nil).
type Planned struct {
	File string
	Data []byte
}

// Plan is what a dry run recorded, in the order the transaction's caller
// asked.
type Plan struct {
	Files   []Planned
	Message string // the commit message Commit was given; "" when it was not called
}

// record adds file's planned bytes, replacing what an earlier call planned
// for it.
func (p *Plan) record(file string, data []byte) {
	for i := range p.Files {
		if p.Files[i].File == file {
			p.Files[i].Data = data
			return
		}
	}
	p.Files = append(p.Files, Planned{File: file, Data: data})
}

// BeginDryRun starts a dry-run transaction for who: it scans the folder
// like Begin, without the write lock and without asking git. The caller
// must Close it (a no-op) and reads the record with Tx.Plan.
func (f *Folder) BeginDryRun(ctx context.Context, who string) (*Tx, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx := &Tx{f: f, touched: map[string]bool{}, dry: &Plan{}}
	tx.store = f.NewStore()
	if err := tx.store.Scan(); err != nil {
		return nil, err
	}
	return tx, nil
}

// DryRun reports whether tx is a dry run (BeginDryRun).
func (tx *Tx) DryRun() bool { return tx.dry != nil }

// Plan is what a dry run recorded so far; for a real transaction, an empty
// Plan.
func (tx *Tx) Plan() Plan {
	if tx.dry == nil {
		return Plan{}
	}
	return *tx.dry
}

// data is what the plan recorded for file (nil: a removal), and whether it
// recorded anything. A nil plan (a real transaction) recorded nothing.
func (p *Plan) data(file string) ([]byte, bool) {
	if p == nil {
		return nil, false
	}
	for _, f := range p.Files {
		if f.File == file {
			return f.Data, true
		}
	}
	return nil, false
}
