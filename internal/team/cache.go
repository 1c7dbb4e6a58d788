package team

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/memoryd/memoryd/internal/atomicfile"
	"github.com/memoryd/memoryd/internal/index"
)

// contextFile caches the team's section (before its notes) in the team's
// state folder, with the fingerprint of the folder it was built from:
// reading and parsing a thousand facts costs ~20 ms, a session start has
// a few.
const contextFile = "context.json"

// racyWindow: a file changed this recently could change again without its
// size or time changing, so a section built from it is not kept.
const racyWindow = 2 * time.Second

type contextCache struct {
	Key     string  `json:"key"`
	Section section `json:"section"`
}

// CachedContext is Context, kept in cacheDir for the folder as it is: the
// names, sizes, times and modes of its files, the budget, and extra (what
// else hold depends on: the gate's confirmations file, its stamp). A
// folder with subfolders, or a file changed in the last two seconds, is
// read every time.
func (f Folder) CachedContext(cacheDir, extra string, b index.Budget, hold func(*index.Memory) string, n Notes) ([]byte, error) {
	// The bylines are kept too: HEAD's commit is in the key.
	head := headCommit(f.Root)
	key, ok := f.fingerprint(fmt.Sprintf("%s\x00%s\x00%d\x00%d", head, extra, b.Lines, b.Bytes))
	ok = ok && head != ""
	if ok {
		var c contextCache
		if data, err := os.ReadFile(filepath.Join(cacheDir, contextFile)); err == nil && json.Unmarshal(data, &c) == nil && c.Key == key {
			return c.Section.finish(n), nil
		}
	}
	sec, err := f.section(b, hold)
	if err != nil {
		return nil, err
	}
	sec = sec.byline(n)
	if ok {
		if data, err := json.Marshal(contextCache{Key: key, Section: sec}); err == nil && os.MkdirAll(cacheDir, 0o700) == nil {
			atomicfile.Write(cacheDir, contextFile, data, 0o600) // a cache: failing to keep it costs a scan next time
		}
	}
	return sec.finish(n), nil
}

// fingerprint is a hash of the folder's files as stat sees them and of
// extra; ok is false when it cannot stand for the folder's content.
func (f Folder) fingerprint(extra string) (key string, ok bool) {
	var files []byte
	if f.look != nil {
		f.look.once.Do(func() { f.look.files, f.look.ok = f.statFiles() })
		files, ok = f.look.files, f.look.ok
	} else {
		files, ok = f.statFiles()
	}
	if !ok {
		return "", false
	}
	h := sha256.New()
	h.Write([]byte(extra))
	h.Write(files)
	return hex.EncodeToString(h.Sum(nil)), true
}

// look is what one look at the folder read, shared by the copies of a
// Folder that Once made.
type look struct {
	once  sync.Once
	files []byte
	ok    bool
}

// Once is f reading its files' stat at most once, for the several things
// one session start asks of the folder (its section, the comparison with
// the person's facts): a process that looks again later takes a new
// Folder (Find, At).
func (f Folder) Once() Folder {
	f.look = &look{}
	return f
}

// statFiles is the digest of the folder's files as stat sees them (names,
// sizes, times, modes); ok is false when it cannot stand for their
// content: a subfolder, or a file changed within racyWindow.
func (f Folder) statFiles() ([]byte, bool) {
	entries, err := os.ReadDir(f.Dir)
	if err != nil {
		return nil, false
	}
	h := sha256.New()
	recent := time.Now().Add(-racyWindow).UnixNano()
	buf := make([]byte, 0, 128)
	for _, e := range entries {
		if e.IsDir() && !index.IgnoredDir(e.Name()) {
			return nil, false
		}
		if !index.IsMemory(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if err != nil || fi.ModTime().UnixNano() > recent {
			return nil, false
		}
		buf = append(append(buf[:0], 0), e.Name()...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(fi.Size()))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(fi.ModTime().UnixNano()))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(fi.Mode()))
		h.Write(buf)
	}
	return h.Sum(nil), true
}
