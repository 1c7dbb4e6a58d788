// Package verdicts remembers, across processes, which texts the detectors
// (the secret rules behind an index line, the planted-instruction rules)
// already found clean, so that a one-shot command at 10,000 facts runs
// them only on the texts that changed.
//
// A key is the SHA-256 of the exact text a detector read, with the name of
// the check before it (Key): a changed text is a new key, so an edit that
// keeps a file's size and modification time can never reuse a verdict.
// Only clean verdicts are kept; a text that holds something is checked
// again every time. The file is tied to the memoryd binary that wrote it
// (its path, size, times and inode): another build, whose rules may
// differ, starts afresh. A missing, torn, corrupt or foreign file is
// ignored and replaced; nothing here ever fails a command.
package verdicts

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"syscall"

	"github.com/memoryd/memoryd/internal/atomicfile"
)

// KeySize is the size of a key.
const KeySize = sha256.Size

// Key identifies one text as one check reads it: the check in its first
// byte, then 31 bytes of the SHA-256 of the check and the text.
type Key [KeySize]byte

// Check is a detector whose clean verdicts a Set keeps.
type Check byte

// The checks, one a detector (never renumber: a number names one check in
// every file written).
const (
	IndexLine Check = 1 + iota // secrets.Redact of an index line's title and description
	Planted                    // folder.PlantedInstruction of a fact's text
	Screen                     // secrets.Screen of a fact's file text, by the gate
)

// KeyOf returns the key of check over the texts, each ended by a zero byte
// (so that ("ab", "c") and ("a", "bc") differ).
func KeyOf(check Check, texts ...string) Key {
	h := sha256.New()
	h.Write([]byte{byte(check), 0})
	for _, t := range texts {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	var k Key
	h.Sum(k[:0])
	k[0] = byte(check)
	return k
}

// magic starts every file; the binary's identity follows on the same line.
const magic = "memoryd verdicts 1 "

// Set is the clean verdicts of one state folder. It is safe for
// concurrent use. A nil *Set remembers nothing: Clean is false, Add and
// Save do nothing.
type Set struct {
	dir, name string
	header    []byte // magic, the binary's identity, '\n'

	mu     sync.Mutex
	loaded bool         // old was read (on first use: a command that checks nothing reads nothing)
	old    []byte       // the file's keys, sorted, KeySize bytes each (nil: none or unusable)
	used   map[Key]bool // keys found clean or added by this process
	added  bool
}

// Open returns the set kept in the file name of the state folder dir,
// read on first use. It never fails: a file it cannot use gives an empty
// set, replaced by the next Save. It returns nil (a set that remembers
// nothing) when the running binary cannot be identified.
func Open(dir, name string) *Set {
	id, ok := binaryID()
	if !ok || dir == "" {
		return nil
	}
	return &Set{dir: dir, name: name, header: []byte(magic + id + "\n"), used: map[Key]bool{}}
}

// load reads the file once; s.mu is held.
func (s *Set) load() {
	if s.loaded {
		return
	}
	s.loaded = true
	if data, err := os.ReadFile(filepath.Join(s.dir, s.name)); err == nil {
		s.old = decode(data, s.header)
	}
}

// binaryID names the running executable's file as it is on disk, so that
// a rebuilt or upgraded binary (other rules) does not trust this one's
// verdicts.
func binaryID() (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "", false
	}
	id := fmt.Sprintf("%q %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id += fmt.Sprintf(" %d %d", st.Ino, st.Dev)
	}
	return id, true
}

// decode returns the keys of data, a file written by encode with header,
// as they lie in data, or nil when it is not one (another binary's, torn,
// corrupt). They are searched where they lie: a copy of 10,000 facts'
// keys would cost more than the look-ups.
func decode(data, header []byte) []byte {
	body, ok := bytes.CutPrefix(data, header)
	if !ok || len(body) < sumSize || (len(body)-sumSize)%KeySize != 0 {
		return nil
	}
	if crc32.Checksum(data[:len(data)-sumSize], castagnoli) != binary.LittleEndian.Uint32(body[len(body)-sumSize:]) {
		return nil
	}
	return body[:len(body)-sumSize]
}

// has reports whether keys, as decode returns them, holds k.
func has(keys []byte, k Key) bool {
	n := len(keys) / KeySize
	i := sort.Search(n, func(i int) bool { return bytes.Compare(keys[i*KeySize:(i+1)*KeySize], k[:]) >= 0 })
	return i < n && bytes.Equal(keys[i*KeySize:(i+1)*KeySize], k[:])
}

// encode is the file holding keys (sorted, unique): header, the keys,
// and the CRC-32C of all that (against a torn or damaged file; the state
// folder is the user's alone, so no one else can forge one).
func encode(header []byte, keys []Key) []byte {
	data := make([]byte, 0, len(header)+len(keys)*KeySize+sumSize)
	data = append(data, header...)
	for _, k := range keys {
		data = append(data, k[:]...)
	}
	return binary.LittleEndian.AppendUint32(data, crc32.Checksum(data, castagnoli))
}

// sumSize is the size of the checksum that ends a file.
const sumSize = 4

// castagnoli is the CRC-32C table (computed by the CPU where it can).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Clean reports whether the text of k was found clean before, by this
// process or one that saved the set.
func (s *Set) Clean(k Key) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used[k] {
		return true
	}
	s.load()
	ok := has(s.old, k)
	if ok {
		s.used[k] = true
	}
	return ok
}

// Add records that the text of k was found clean.
func (s *Set) Add(k Key) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.used[k] {
		s.used[k] = true
		s.added = true
	}
}

// Save writes the set when this process added to it. The file's keys of
// the checks in all are dropped unless this process used them (it ran
// those checks over every current text of the folder): verdicts of texts
// gone from the folder do not pile up. The file's other keys are kept.
// The write is atomic but not synced: a crash loses only work.
func (s *Set) Save(all ...Check) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if !s.added {
		s.mu.Unlock()
		return nil
	}
	s.load()
	keys := make([]Key, 0, len(s.used)+len(s.old)/KeySize)
	for k := range s.used {
		keys = append(keys, k)
	}
	for i := 0; i < len(s.old); i += KeySize {
		k := Key(s.old[i : i+KeySize])
		if !slices.Contains(all, Check(k[0])) {
			keys = append(keys, k)
		}
	}
	s.added = false
	s.mu.Unlock()
	slices.SortFunc(keys, func(a, b Key) int { return bytes.Compare(a[:], b[:]) })
	keys = slices.Compact(keys)
	if _, err := atomicfile.WriteNoSync(s.dir, s.name, encode(s.header, keys), 0o600); err != nil {
		return fmt.Errorf("save the detectors' verdicts: %w", err)
	}
	return nil
}
