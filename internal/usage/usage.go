// Package usage counts how often agents use each fact — returned by a
// search, read through MCP, injected by recall, listed in an index a session
// loaded — in the state folder, never in the fact's file (that would churn
// git). A use is one line appended to a log; reading aggregates the log.
//
// The log is safe with several processes at once (the CLI, the MCP server,
// the daemon): every writer appends whole lines with one write on a file
// opened O_APPEND, holding a shared lock, so lines never interleave. A
// crash can leave at most a torn last line, which reading ignores. When the
// log passes FoldAt bytes, the writer that noticed folds it into a summary
// under the exclusive lock: the log is renamed aside (so no late append can
// land in what is being folded), the summary written atomically with the
// hash of what it folded, then the renamed log removed. A crash at any step
// neither loses nor double-counts a use.
//
// Facts are named by their path relative to the memory folder ("user-x.md",
// "sub/y.md"). A renamed or forgotten fact leaves its counts behind under
// the old name; nothing reads them.
package usage

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/state"
)

// Kind is how a fact was used.
type Kind string

// The kinds of use.
const (
	Search  Kind = "search"  // returned by memoryd search or memory_search
	Read    Kind = "read"    // read with memory_read
	Recall  Kind = "recall"  // injected into a prompt by recall
	Context Kind = "context" // listed in an index a session loaded (memoryd context)
)

// The files of the usage log in the state folder (named in package state).
const (
	LogFile     = state.UsageLog
	SummaryFile = state.UsageSummary
	foldingFile = state.UsageLog + ".folding"
	lockFile    = state.UsageLog + ".lock"
	summaryHead = "memoryd usage v1 " // the summary's first line, then the hash of the last log folded
)

// FoldAt is the size of the log past which a writer folds it into the
// summary: about 25,000 uses, read in a few milliseconds.
const FoldAt = 1 << 20

// Use is what the log says of one fact.
type Use struct {
	Uses   int       // every use, of any kind
	Active int       // uses an agent asked for: search, read, recall (not Context)
	Last   time.Time // the last use of any kind, to the second
}

// Log is the usage log of one state folder. Its methods may be called from
// any goroutine and any process.
type Log struct {
	dir    string
	foldAt int64
}

// Open returns the usage log in stateDir. It touches nothing: the folder
// and files are created by the first Record.
func Open(stateDir string) *Log { return &Log{dir: stateDir, foldAt: FoldAt} }

// Record appends one use of kind at now for each of files (paths relative to
// the memory folder). Names with a space or a line break are not counted.
func (l *Log) Record(kind Kind, now time.Time, files ...string) error {
	if len(files) == 0 {
		return nil
	}
	var b []byte
	ts := strconv.AppendInt(nil, now.Unix(), 10)
	for _, f := range files {
		if !validName(f) {
			continue
		}
		b = append(b, ts...)
		b = append(b, ' ')
		b = append(b, kind...)
		b = append(b, ' ')
		b = append(b, f...)
		b = append(b, '\n')
	}
	if len(b) == 0 {
		return nil
	}
	size, err := l.append(b)
	if err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	if size >= l.foldAt {
		if err := l.fold(); err != nil {
			return fmt.Errorf("fold usage log: %w", err)
		}
	}
	return nil
}

// append writes b at the end of the log under the shared lock and returns
// the log's size after it.
func (l *Log) append(b []byte) (int64, error) {
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return 0, err
	}
	fl := flock.New(filepath.Join(l.dir, lockFile), flock.SetPermissions(0o600))
	if err := fl.RLock(); err != nil {
		return 0, err
	}
	defer fl.Unlock()
	f, err := os.OpenFile(filepath.Join(l.dir, LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Read aggregates every use recorded so far, by fact. A missing log is no
// use at all; a line that does not parse (a torn last line) is skipped.
func (l *Log) Read() (map[string]Use, error) {
	out := map[string]Use{}
	if _, err := os.Stat(l.dir); errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	fl := flock.New(filepath.Join(l.dir, lockFile), flock.SetPermissions(0o600))
	if err := fl.RLock(); err != nil {
		return out, fmt.Errorf("read usage: %w", err)
	}
	defer fl.Unlock()
	if err := l.readLocked(out); err != nil {
		return out, fmt.Errorf("read usage: %w", err)
	}
	return out, nil
}

// readLocked adds the summary, a log left half folded and the log to out.
// The caller holds the lock, shared or exclusive.
func (l *Log) readLocked(out map[string]Use) error {
	folded, err := readSummary(filepath.Join(l.dir, SummaryFile), out)
	if err != nil {
		return err
	}
	if data, err := readIf(filepath.Join(l.dir, foldingFile)); err != nil {
		return err
	} else if data != nil && sum(data) != folded {
		addLines(data, out)
	}
	data, err := readIf(filepath.Join(l.dir, LogFile))
	if err != nil {
		return err
	}
	addLines(data, out)
	return nil
}

// fold moves the log into the summary under the exclusive lock; a fold
// already under way in another process is left to it.
func (l *Log) fold() error {
	fl := flock.New(filepath.Join(l.dir, lockFile), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil || !ok {
		return err
	}
	defer fl.Unlock()
	logPath, folding := filepath.Join(l.dir, LogFile), filepath.Join(l.dir, foldingFile)
	if _, err := os.Stat(folding); errors.Is(err, fs.ErrNotExist) {
		if fi, err := os.Stat(logPath); err != nil || fi.Size() < l.foldAt {
			return nil // folded meanwhile by another process
		}
		if err := os.Rename(logPath, folding); err != nil {
			return err
		}
	} // else: a fold that crashed; finish it (the log itself waits for the next)
	all := map[string]Use{}
	done, err := readSummary(filepath.Join(l.dir, SummaryFile), all)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(folding)
	if err != nil {
		return err
	}
	if h := sum(data); done != h { // not folded yet
		addLines(data, all)
		if _, err := atomicfile.Write(l.dir, SummaryFile, formatSummary(all, h), 0o600); err != nil {
			return err
		}
	}
	return os.Remove(folding)
}

// Active is how often agents asked for each fact — searched, read,
// recalled, not merely listed — by file: what the index budget prefers. An
// unreadable log counts as no use.
func (l *Log) Active() map[string]int {
	all, _ := l.Read()
	out := make(map[string]int, len(all))
	for f, u := range all {
		if u.Active > 0 {
			out[f] = u.Active
		}
	}
	return out
}

// Touched is when a fact was last used, or made when it was never used
// since: made is the fact's own date (metadata.updated, else the file's
// modification time), so a fact written last week is not "unused for 60
// days".
func Touched(u Use, made time.Time) time.Time {
	if u.Last.After(made) {
		return u.Last
	}
	return made
}

// validName reports whether f can be one field of a log line.
func validName(f string) bool {
	return f != "" && !strings.ContainsAny(f, " \t\r\n\x00")
}

// addLines counts each well-formed line of data ("<unix> <kind> <file>")
// into out. A line without its newline, with another number of fields or
// a bad time is skipped.
func addLines(data []byte, out map[string]Use) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return // torn last line
		}
		line := data[:i]
		data = data[i+1:]
		a := bytes.IndexByte(line, ' ')
		if a <= 0 {
			continue
		}
		rest := line[a+1:]
		k := bytes.IndexByte(rest, ' ')
		if k <= 0 || k == len(rest)-1 || bytes.IndexByte(rest[k+1:], ' ') >= 0 {
			continue
		}
		t, err := strconv.ParseInt(string(line[:a]), 10, 64)
		if err != nil || t <= 0 {
			continue
		}
		kind, file := rest[:k], string(rest[k+1:])
		if !knownKind(kind) {
			continue
		}
		u := out[file]
		u.Uses++
		if string(kind) != string(Context) {
			u.Active++
		}
		if tm := time.Unix(t, 0); tm.After(u.Last) {
			u.Last = tm
		}
		out[file] = u
	}
}

func knownKind(k []byte) bool {
	switch Kind(k) {
	case Search, Read, Recall, Context:
		return true
	}
	return false
}

// readSummary adds the summary at path to out and returns the hash of the
// last log it folded ("" when there is none).
func readSummary(path string, out map[string]Use) (folded string, err error) {
	data, err := readIf(path)
	if err != nil || data == nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), summaryHead) {
		return "", fmt.Errorf("%s: not a usage summary (delete it to start counting afresh)", path)
	}
	folded = strings.TrimPrefix(sc.Text(), summaryHead)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 4)
		if len(f) != 4 {
			continue
		}
		n, e1 := strconv.Atoi(f[0])
		a, e2 := strconv.Atoi(f[1])
		t, e3 := strconv.ParseInt(f[2], 10, 64)
		if e1 != nil || e2 != nil || e3 != nil {
			continue
		}
		u := out[f[3]]
		u.Uses, u.Active = u.Uses+n, u.Active+a
		if tm := time.Unix(t, 0); tm.After(u.Last) {
			u.Last = tm
		}
		out[f[3]] = u
	}
	return folded, sc.Err()
}

// formatSummary is the summary of all, having folded the log whose hash is
// folded: a head line, then "<uses> <active> <unix> <file>" per fact.
func formatSummary(all map[string]Use, folded string) []byte {
	b := []byte(summaryHead + folded + "\n")
	for f, u := range all {
		b = strconv.AppendInt(b, int64(u.Uses), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(u.Active), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, u.Last.Unix(), 10)
		b = append(b, ' ')
		b = append(b, f...)
		b = append(b, '\n')
	}
	return b
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}

// readIf reads path, or returns nil when it does not exist.
func readIf(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Text says how often a fact was used, for `memoryd show`: "used 3 times,
// last 2026-11-26 10:02", or "never used by an agent".
func (u Use) Text() string {
	switch u.Uses {
	case 0:
		return "never used by an agent"
	case 1:
		return "used once, " + u.Last.Local().Format("2006-01-02 15:04")
	}
	return fmt.Sprintf("used %d times, last %s", u.Uses, u.Last.Local().Format("2006-01-02 15:04"))
}
