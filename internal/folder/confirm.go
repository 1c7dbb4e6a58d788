package folder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/state"
)

// ConfirmedFile, in the memory folder's state folder, records the planted
// instructions a person let out: each fact's file with the ContentHash of
// its text when they confirmed it. It lives on this machine only, never in
// the folder: a fact that arrives by sync with a confirmation of its own
// must still be held, and an edit of the words after the confirmation
// holds the fact again.
const ConfirmedFile = "gate-confirmed.json"

// confirmedDoc is ConfirmedFile's content.
type confirmedDoc struct {
	Facts map[string]string `json:"facts"` // file → ContentHash at confirmation
}

// ContentHash is the hash of the words of m an agent reads (name, title,
// description, body): what a confirmation is keyed to. Metadata memoryd
// changes on its own (updated, cites, usage) does not change it.
func ContentHash(m *index.Memory) string {
	sum := sha256.Sum256([]byte(plantedText(m)))
	return hex.EncodeToString(sum[:])
}

// Confirm records that a person read m and lets it out to agents although
// the planted-instruction rules hold it (memoryd check --confirm NAME).
// The indexes list it from their next rebuild.
func Confirm(stateDir string, m *index.Memory) error {
	var doc confirmedDoc
	if err := state.ReadJSON(stateDir, ConfirmedFile, &doc); err != nil && !state.IsNotExist(err) {
		doc = confirmedDoc{} // unreadable: what is written now is what counts
	}
	if doc.Facts == nil {
		doc.Facts = map[string]string{}
	}
	doc.Facts[m.File] = ContentHash(m)
	return state.WriteJSON(stateDir, ConfirmedFile, doc)
}

// confirmations is ConfirmedFile as last read, read again when the file
// changed (checked at most every recheck), so a long-lived daemon sees a
// confirmation made by another process.
type confirmations struct {
	dir string

	mu      sync.Mutex
	checked time.Time
	mod     time.Time
	size    int64
	facts   map[string]string
}

const recheck = time.Second

func (c *confirmations) has(file, hash string) bool {
	if c.dir == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := time.Now(); now.Sub(c.checked) >= recheck {
		c.checked = now
		c.reload()
	}
	return c.facts[file] == hash
}

// reload reads the file when its size or time changed; a missing or
// unreadable file confirms nothing.
func (c *confirmations) reload() {
	fi, err := os.Stat(filepath.Join(c.dir, ConfirmedFile))
	if err != nil {
		c.facts, c.mod, c.size = nil, time.Time{}, 0
		return
	}
	if fi.ModTime().Equal(c.mod) && fi.Size() == c.size && c.facts != nil {
		return
	}
	var doc confirmedDoc
	if state.ReadJSON(c.dir, ConfirmedFile, &doc) != nil {
		doc.Facts = nil
	}
	c.facts, c.mod, c.size = doc.Facts, fi.ModTime(), fi.Size()
	if c.facts == nil {
		c.facts = map[string]string{}
	}
}

// ConfirmPlanted lets out to agents m, a fact the gate holds as a planted
// instruction, once a person read it and says it is theirs (memoryd check
// --confirm NAME): the confirmation is recorded (Confirm), and the
// indexes, which left the fact out, are settled and committed by who.
func (f *Folder) ConfirmPlanted(ctx context.Context, m *index.Memory, who string) error {
	if err := Confirm(f.stateDir, m); err != nil {
		return fmt.Errorf("record the confirmation: %w", err)
	}
	tx, err := f.Begin(ctx, who)
	if err != nil {
		return err
	}
	defer tx.Close()
	kind := commitmsg.KindConfirm
	_, err = tx.Commit(ctx, commitmsg.Message{Subject: fmt.Sprintf("memory: %s %s (%s)", kind, m.File, who), Kind: kind, Writer: commitmsg.Person})
	return err
}
