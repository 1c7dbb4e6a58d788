// Package thesaurus reads the words related to an English word from a
// WordNet database installed on the system (Debian's wordnet-base,
// Homebrew's wordnet, WordNet 3.0 or 3.1): its synonyms, the narrower words of a noun or a
// verb ("herb" → "coriander", "basil"), the words derived from it and the
// adjectives close to it. Search uses them for a query word no fact has,
// so that "which herb does Ana refuse to eat?" finds "Ana hates coriander"
// without a model.
//
// Nothing is loaded: the database's sorted index files are searched in
// place and its synsets read at their offsets (wndb(5)), so a lookup
// costs a few dozen small reads, and a process that never needs one
// opens nothing.
package thesaurus

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// maxWords is the most words Related returns.
const maxWords = 400

// Thesaurus is an open WordNet database. Its methods may be called from
// any goroutine.
type Thesaurus struct {
	dir   string
	parts [numParts]*part
}

// Dirs are the folders Find looks in after $WNSEARCHDIR (WordNet's own
// variable): where Debian's wordnet-base, Homebrew's wordnet (Apple
// silicon, Intel) and WordNet's own build put the database.
var Dirs = []string{"/usr/share/wordnet", "/opt/homebrew/opt/wordnet/dict", "/usr/local/opt/wordnet/dict",
	"/usr/local/WordNet-3.0/dict"}

// Find opens the first WordNet database of $WNSEARCHDIR and Dirs; nil
// when there is none.
func Find() *Thesaurus {
	dirs := Dirs
	if d := os.Getenv("WNSEARCHDIR"); d != "" {
		dirs = append([]string{d}, dirs...)
	}
	for _, d := range dirs {
		if t, err := Open(d); err == nil {
			return t
		}
	}
	return nil
}

// Off is the setting (Configure) that uses no thesaurus.
const Off = "off"

var (
	defaultMu      sync.Mutex
	defaultSetting string // see Configure
	defaultT       *Thesaurus
	defaultLooked  time.Time // when the last look found none
)

// retryAfter is how long Default goes on answering nil before it looks
// again, so that a daemon finds WordNet installed after it started.
const retryAfter = time.Minute

// Configure sets what Default answers from: "" (Find's folders), Off (no
// thesaurus), or a folder (that database alone); the configuration's
// search.thesaurus. A change forgets the database Default had (and leaves
// it open: a search may still be reading it).
func Configure(setting string) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if setting == defaultSetting {
		return
	}
	defaultSetting, defaultT, defaultLooked = setting, nil, time.Time{}
}

// Default is the thesaurus the process searches with, as Configure set
// it: nil for none. Once found it is kept; while none is found it is
// looked for again every retryAfter.
func Default() *Thesaurus {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultT != nil || defaultSetting == Off || !defaultLooked.IsZero() && time.Since(defaultLooked) < retryAfter {
		return defaultT
	}
	if defaultSetting == "" {
		defaultT = Find()
	} else {
		defaultT, _ = Open(defaultSetting)
	}
	if defaultT == nil {
		defaultLooked = time.Now()
	}
	return defaultT
}

// Open opens the WordNet database in dir. It fails when dir lacks the
// noun files; the verb and adjective files are used when present.
func Open(dir string) (*Thesaurus, error) {
	t := &Thesaurus{dir: dir}
	for p := range numParts {
		pt, err := openPart(dir, p)
		if err != nil {
			if p == noun {
				t.Close()
				return nil, err
			}
			continue
		}
		t.parts[p] = pt
	}
	return t, nil
}

// Dir is the folder of the database.
func (t *Thesaurus) Dir() string { return t.dir }

// Close closes the database's files.
func (t *Thesaurus) Close() error {
	for _, p := range t.parts {
		if p != nil {
			p.close()
		}
	}
	return nil
}

// Knows reports whether w, lower-case, is an English word of the
// database in some form ("eaten" is: it is a form of "eat").
func (t *Thesaurus) Knows(w string) bool {
	for _, p := range t.parts {
		if p != nil && len(p.bases(w)) > 0 {
			return true
		}
	}
	return false
}

// Related returns the single words related to w (lower-case) in the
// database, nearest first: the base forms of w itself, then for each of
// its senses, most common first, the sense's synonyms, the words derived
// from w, and the narrower words (two levels down for a noun, one for a
// verb) or, for an adjective, the adjectives close to it. w itself and
// words of several parts ("Chinese parsley") are left out; at most
// maxWords, nil when the database does not know w. It reads at most
// budget synsets (a few microseconds each), and returns how many it read.
func (t *Thesaurus) Related(w string, budget int) ([]string, int) {
	c := collector{seen: map[string]bool{w: true}}
	// Breadth first within each sense, and the senses in turn: every
	// sense's synonyms before any narrower word, and a sense with
	// hundreds of narrower words ("herb", the plant) does not spend the
	// budget before another's few ("herb", the seasoning) are read.
	var queues [][]todo
	for _, s := range t.senses(w, &c) {
		queues = append(queues, []todo{{s, 0}})
	}
	read := 0
	for more := true; more && read < budget && !c.full(); {
		more = false
		for i := range queues {
			if len(queues[i]) == 0 || read >= budget || c.full() {
				continue
			}
			next, n := t.visit(queues[i][0], &c)
			queues[i] = append(queues[i][1:], next...)
			read += n
			more = more || len(queues[i]) > 0
		}
	}
	return c.words, read
}

// senses returns the senses of w's base forms, most common first within
// each part of speech, and adds the base forms to c.
func (t *Thesaurus) senses(w string, c *collector) []sense {
	var out []sense
	for p, pt := range t.parts {
		if pt == nil {
			continue
		}
		for _, b := range pt.bases(w) {
			c.add(b.lemma)
			offs, err := offsets(b.line)
			if err != nil {
				continue
			}
			for _, off := range offs {
				out = append(out, sense{part: partID(p), off: off, lemma: b.lemma})
			}
		}
	}
	return out
}

// todo is a synset to read: a sense of the word, or one reached from it.
type todo struct {
	s     sense
	depth int // 0 for the sense itself
}

// visit reads d's synset, adds its words to c (and, for a sense of the
// word itself, the words derived from the word), and returns the synsets
// to read after it and how many it read.
func (t *Thesaurus) visit(d todo, c *collector) (next []todo, read int) {
	ss, err := t.parts[d.s.part].synset(d.s.off)
	read++
	if err != nil {
		return nil, read
	}
	c.add(ss.words...)
	for _, ptr := range ss.pointers {
		switch {
		case d.depth == 0 && ptr.symbol == "+" && ptr.from(ss, d.s.lemma):
			if pt := t.parts[ptr.part]; pt != nil {
				read++
				if target, err := pt.synset(ptr.off); err == nil {
					c.add(ptr.to(target)...)
				}
			}
		case d.depth < narrowerDepth(d.s.part) && (ptr.symbol == "~" || ptr.symbol == "~i") && ptr.part == d.s.part,
			d.depth == 0 && d.s.part == adj && ptr.symbol == "&" && ptr.part == adj:
			next = append(next, todo{sense{part: ptr.part, off: ptr.off}, d.depth + 1})
		}
	}
	return next, read
}

// narrowerDepth is how many levels of narrower words a part of speech
// brings: a noun's kinds of kinds ("instrument" → "stringed instrument"
// → "cello"), a verb's manners of doing it ("run" → "jog").
func narrowerDepth(p partID) int {
	switch p {
	case noun:
		return 2
	case verb:
		return 1
	}
	return 0
}

// sense is one meaning of a word: a synset, and the lemma it was found by.
type sense struct {
	part  partID
	off   int64
	lemma string
}

// collector keeps the words found, each once, single words only.
type collector struct {
	seen  map[string]bool
	words []string
}

func (c *collector) full() bool { return len(c.words) >= maxWords }

func (c *collector) add(words ...string) {
	for _, w := range words {
		w = strings.ToLower(w)
		if c.full() || c.seen[w] || !singleWord(w) {
			continue
		}
		c.seen[w] = true
		c.words = append(c.words, w)
	}
}

// singleWord reports whether w is one word of letters: no space or
// underscore (WordNet's), no hyphen, digit or dot.
func singleWord(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !('a' <= r && r <= 'z' || r > 0x7f) {
			return false
		}
	}
	return true
}

// files of one part of speech.
func partFiles(dir string, p partID) (index, data, exc string) {
	n := partNames[p]
	return filepath.Join(dir, "index."+n), filepath.Join(dir, "data."+n), filepath.Join(dir, excNames[p]+".exc")
}
