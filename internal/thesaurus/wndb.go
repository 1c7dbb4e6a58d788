package thesaurus

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// This file reads WordNet's database files as wndb(5) describes them:
// index.POS, one line a lemma, sorted, giving the offsets of its synsets
// in data.POS; data.POS, one line a synset at that offset; POS.exc, the
// irregular forms ("eaten eat"), sorted.

type partID int

const (
	noun partID = iota
	verb
	adj
	numParts
)

var (
	partNames = [numParts]string{"noun", "verb", "adj"}
	excNames  = [numParts]string{"noun", "verb", "adj"}
	// partOf is a pointer's part of speech letter ("s", an adjective
	// satellite, is in the adjective files; "r", an adverb, is not read).
	partOf = map[string]partID{"n": noun, "v": verb, "a": adj, "s": adj}
)

// part is the files of one part of speech, mapped into memory.
type part struct {
	id          partID
	index, data []byte
	exc         []byte // nil when missing
	unmap       []func() error
}

func openPart(dir string, p partID) (*part, error) {
	pt := &part{id: p}
	ip, dp, ep := partFiles(dir, p)
	for _, f := range []struct {
		path     string
		into     *[]byte
		optional bool
	}{{ip, &pt.index, false}, {dp, &pt.data, false}, {ep, &pt.exc, true}} {
		b, unmap, err := mapFile(f.path)
		if err != nil {
			if f.optional {
				continue
			}
			pt.close()
			return nil, err
		}
		*f.into = b
		pt.unmap = append(pt.unmap, unmap)
	}
	return pt, nil
}

func (p *part) close() {
	for _, u := range p.unmap {
		u()
	}
	p.unmap = nil
}

// offsets returns the synset offsets of an index line, most common sense
// first.
func offsets(line string) ([]int64, error) {
	// lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
	f := strings.Fields(line)
	if len(f) < 4 {
		return nil, errMalformed
	}
	n, err1 := strconv.Atoi(f[2])
	pc, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || len(f) < 6+pc+n {
		return nil, errMalformed
	}
	offs := make([]int64, 0, n)
	for _, s := range f[6+pc : 6+pc+n] {
		off, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, errMalformed
		}
		offs = append(offs, off)
	}
	return offs, nil
}

// base is a lemma of the index and its line.
type base struct{ lemma, line string }

// bases returns the lemmas of this part that w is a form of, with their
// index lines: w itself, its irregular bases (POS.exc), and what the
// regular endings give (WordNet's "morphy").
func (p *part) bases(w string) []base {
	var cands []string
	if len(p.exc) > 0 {
		if line, err := findLine(p.exc, w); err == nil {
			cands = append(cands, strings.Fields(line)[1:]...)
		}
	}
	cands = append(cands, w)
	for _, r := range endings[p.id] {
		if strings.HasSuffix(w, r[0]) && len(w) > len(r[0]) {
			cands = append(cands, w[:len(w)-len(r[0])]+r[1])
		}
	}
	var out []base
	for _, c := range cands {
		if slices.ContainsFunc(out, func(b base) bool { return b.lemma == c }) {
			continue
		}
		if line, err := findLine(p.index, c); err == nil {
			out = append(out, base{c, line})
		}
	}
	return out
}

// endings are the regular inflections of each part: an ending, and what
// replaces it in the base form.
var endings = [numParts][][2]string{
	noun: {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	verb: {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	adj:  {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
}

// synsetData is one line of data.POS.
type synsetData struct {
	words    []string
	pointers []pointer
}

// pointer is a relation from a synset (or one of its words) to another.
type pointer struct {
	symbol   string // "@" broader, "~" narrower, "+" derived, "&" similar, …
	off      int64
	part     partID
	src, dst int // word numbers, 1-based; 0 and 0: the synsets as wholes
}

// from reports whether the pointer starts at lemma's word of ss (or at
// ss as a whole).
func (ptr pointer) from(ss *synsetData, lemma string) bool {
	if ptr.src == 0 {
		return true
	}
	return ptr.src <= len(ss.words) && strings.EqualFold(ss.words[ptr.src-1], lemma)
}

// to returns the words of target the pointer ends at.
func (ptr pointer) to(target *synsetData) []string {
	if ptr.dst == 0 || ptr.dst > len(target.words) {
		return target.words
	}
	return target.words[ptr.dst-1 : ptr.dst]
}

var errMalformed = errors.New("thesaurus: malformed line")

// synset reads the synset at off.
func (p *part) synset(off int64) (*synsetData, error) {
	if off < 0 || off > int64(len(p.data)) {
		return nil, errMalformed
	}
	line := string(readLine(p.data, int(off)))
	if i := strings.IndexByte(line, '|'); i >= 0 {
		line = line[:i] // the gloss
	}
	// synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] [frames...]
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != fmt.Sprintf("%08d", off) {
		return nil, errMalformed
	}
	wc, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || len(f) < 5+2*int(wc) {
		return nil, errMalformed
	}
	ss := &synsetData{}
	for i := range int(wc) {
		w := f[4+2*i]
		if j := strings.IndexByte(w, '('); j > 0 { // an adjective's marker: "galore(ip)"
			w = w[:j]
		}
		ss.words = append(ss.words, w)
	}
	rest := f[4+2*wc:]
	pc, err := strconv.Atoi(rest[0])
	if err != nil || len(rest) < 1+4*pc {
		return nil, errMalformed
	}
	for i := range pc {
		q := rest[1+4*i : 5+4*i]
		off, err1 := strconv.ParseInt(q[1], 10, 64)
		st, err2 := strconv.ParseUint(q[3], 16, 16)
		if err1 != nil || err2 != nil || len(q[3]) != 4 {
			return nil, errMalformed
		}
		part, ok := partOf[q[2]]
		if !ok { // an adverb's: not read
			continue
		}
		ss.pointers = append(ss.pointers, pointer{symbol: q[0], off: off, part: part, src: int(st >> 8), dst: int(st & 0xff)})
	}
	return ss, nil
}

// errNotFound is findLine's answer for a key no line has.
var errNotFound = errors.New("thesaurus: not found")

// findLine returns the line of sorted file b whose first field is key, by
// a binary search over byte offsets: the line probed at offset p is the
// first that starts at p or after, and the keys of those lines do not
// decrease as p grows. WordNet's license lines start with a space, so
// their key is "" and they sort first.
func findLine(b []byte, key string) (string, error) {
	if key == "" || strings.ContainsAny(key, " \n") {
		return "", errNotFound
	}
	lo, hi := 0, len(b)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if line := lineFrom(b, mid); len(line) > 0 && lineKey(line) < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	line := lineFrom(b, lo)
	if len(line) == 0 || lineKey(line) != key {
		return "", errNotFound
	}
	return string(line), nil
}

func lineKey(line []byte) string {
	if i := bytes.IndexByte(line, ' '); i >= 0 {
		return string(line[:i])
	}
	return string(line)
}

// lineFrom returns the first line of b that starts at p or after, without
// its newline; empty past the last line.
func lineFrom(b []byte, p int) []byte {
	if p > 0 {
		i := bytes.IndexByte(b[p-1:], '\n')
		if i < 0 {
			return nil
		}
		p += i
	}
	return readLine(b, p)
}

// readLine returns the line of b that starts at off, without its newline.
func readLine(b []byte, off int) []byte {
	if off < 0 || off >= len(b) {
		return nil
	}
	line := b[off:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return line
}
