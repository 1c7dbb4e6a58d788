package index

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"math/bits"
	"net/url"
	"regexp"
	"slices"
)

// Preference is what an index prefers, beyond pinned facts, when it cannot
// list every fact: the facts agents use, and the facts it lists already.
// A nil Preference is the plain order of BuildIndex (section, newest,
// file name).
type Preference struct {
	// Uses is how often agents asked for each fact (searched, read,
	// recalled — not merely listed, which would keep whatever is listed
	// listed), by file. Counts are bucketed by powers of two (1, 2–3, 4–7,
	// …), so one more use rarely changes a choice.
	Uses map[string]int
	// Load, when Uses is nil, gives Uses the first time an index cannot
	// list every fact: reading the counts costs milliseconds, and an index
	// within its budget never needs them.
	Load func() map[string]int
	// Listed is the facts the index files list as they are on disk, by
	// file. Listed facts come first: the choice stays as it is until a fact
	// changes (see Store.WriteIndex).
	Listed map[string]bool
	// LoadListed, when Listed is nil, gives Listed the first time an index
	// cannot list every fact.
	LoadListed func() map[string]bool
}

// useBucket is n uses as a priority: 0 for none, then one more for each
// doubling, at most 8 (128 uses and more).
func useBucket(n int) int {
	if n <= 0 {
		return 0
	}
	return min(bits.Len(uint(n)), 8)
}

// order sorts the item indexes idx by priority: listed already (p.Listed),
// then more uses (bucketed), then section, newest metadata.updated, file.
func (l *layout) order(idx []int, p *Preference) []int {
	type key struct{ listed, uses, sec, date, i int }
	if p != nil && p.Uses == nil && p.Load != nil {
		p.Uses, p.Load = p.Load(), nil
	}
	if p != nil && p.Listed == nil && p.LoadListed != nil {
		p.Listed, p.LoadListed = p.LoadListed(), nil
	}
	keys := make([]key, len(idx))
	for k, i := range idx {
		it := &l.items[i]
		keys[k] = key{sec: int(it.sec), date: dateNum(it.m.Updated), i: i}
		if p != nil {
			keys[k].uses = useBucket(p.Uses[it.m.File])
			if p.Listed[it.m.File] {
				keys[k].listed = 1
			}
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(b.listed-a.listed, b.uses-a.uses, a.sec-b.sec, b.date-a.date, a.i-b.i)
	})
	for k := range keys {
		idx[k] = keys[k].i
	}
	return idx
}

// indexLink matches the link of an index line to a fact file.
var indexLink = regexp.MustCompile(`\]\(([^()\s]+\.md)\)`)

// ListedIn adds to listed the fact files that index (the bytes of an index
// file) links to, percent-decoded as BuildIndex encodes them. Project index
// links (MEMORY.<slug>.md) are added too; they name no fact.
func ListedIn(index []byte, listed map[string]bool) {
	for _, m := range indexLink.FindAllSubmatch(index, -1) {
		if f, err := url.PathUnescape(string(m[1])); err == nil {
			listed[f] = true
		}
	}
}

// factsSeed keys factsPrint for the life of the process.
var factsSeed = maphash.MakeSeed()

// factsPrint is a fingerprint of the memories of s: their files and
// contents. Equal prints mean no fact changed.
func factsPrint(s Snapshot) uint64 {
	var h maphash.Hash
	h.SetSeed(factsSeed)
	for _, m := range s.Memories {
		h.WriteString(m.File)
		h.WriteByte(0)
		h.WriteString(m.Hash)
		h.WriteByte(0)
	}
	return h.Sum64() | 1 // never 0, which means "none yet"
}

// listedOnDisk is the fact files the index files of the folder list now.
func (s *Store) listedOnDisk(files []string) map[string]bool {
	listed := map[string]bool{}
	for _, f := range files {
		if data, err := ReadPlain(s.dir, f); err == nil && bytes.HasPrefix(data, []byte("# Memory")) {
			ListedIn(data, listed)
		}
	}
	return listed
}
