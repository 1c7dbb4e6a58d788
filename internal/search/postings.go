package search

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/index"
)

// The inverted index. For every term (the exact form of a word, as text.go
// makes it) the term table holds its stem and its postings: the facts that
// have it, by row id, each with how often it occurs in each field. A query
// word reads the postings of every form with its stem (and of its
// synonyms'), so that a search costs the postings of its words and nothing
// else: no window, no fact left unscored.
//
// The facts' own figures — field lengths for BM25's length norm, project
// and type for the filters, pinned and updated for the ties — are one blob,
// the doc table, read whole by a search (about 10 bytes a fact).

// The fields of a fact, in the order of their weights.
const (
	fieldName = iota
	fieldTitle
	fieldDescription
	fieldBody
	numFields
)

var fieldNames = [numFields]string{"name", "title", "description", "body"}

// tfs is how often a term occurs in each field of a fact.
type tfs [numFields]uint32

// docTerms returns the terms of a fact's fields with their counts, and the
// length of each field in terms (a chunk whole not counted). With
// skipRepeatedDescription, a description's term that the body's first
// sentence also has is not counted in the description: a description that
// only repeats the body's first words (as many derived descriptions do)
// would otherwise weigh those words twice.
func docTerms(name, title, description, body string) (map[string]*tfs, [numFields]uint32) {
	out := make(map[string]*tfs)
	var lens [numFields]uint32
	var repeated map[string]bool
	if skipRepeatedDescription {
		repeated = make(map[string]bool)
		terms(firstSentence(body), func(t term) bool {
			repeated[t.text] = true
			return true
		})
	}
	for f, text := range [numFields]string{name, title, description, body} {
		terms(text, func(t term) bool {
			if f == fieldDescription && repeated[t.text] {
				lens[f]++
				return true
			}
			c := out[t.text]
			if c == nil {
				c = new(tfs)
				out[t.text] = c
			}
			c[f]++
			if !t.whole {
				lens[f]++
			}
			return true
		})
	}
	return out, lens
}

// skipRepeatedDescription is whether docTerms leaves out of a
// description the terms of the body's first sentence; a var so the recall
// benchmark can compare (see docs/PERFORMANCE.md).
var skipRepeatedDescription = false

// posting is one fact in a term's postings.
type posting struct {
	id int64
	tf tfs
}

// appendPosting encodes p after the posting of id prev: the id's
// difference, a byte with a bit for each field it occurs in, and the count
// of each of those fields.
func appendPosting(b []byte, prev int64, p posting) []byte {
	b = binary.AppendUvarint(b, uint64(p.id-prev))
	var mask byte
	for f, n := range p.tf {
		if n > 0 {
			mask |= 1 << f
		}
	}
	b = append(b, mask)
	for _, n := range p.tf {
		if n > 0 {
			b = binary.AppendUvarint(b, uint64(n))
		}
	}
	return b
}

var errBadPostings = errors.New("search index: malformed postings")

// decodePostings calls fn for each posting of b, in order of id.
func decodePostings(b []byte, fn func(id int64, tf *tfs)) error {
	var id int64
	var tf tfs
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || len(b) < n+1 {
			return errBadPostings
		}
		id += int64(d)
		mask := b[n]
		b = b[n+1:]
		for f := range tf {
			tf[f] = 0
			if mask&(1<<f) != 0 {
				v, n := binary.Uvarint(b)
				if n <= 0 {
					return errBadPostings
				}
				tf[f] = uint32(v)
				b = b[n:]
			}
		}
		fn(id, &tf)
	}
	return nil
}

// editPostings returns the postings of b without the facts in drop and
// with add (sorted by id, none of them in b unless also in drop).
func editPostings(b []byte, drop map[int64]bool, add []posting) ([]byte, error) {
	var out []byte
	var prev int64
	k := 0
	err := decodePostings(b, func(id int64, tf *tfs) {
		for k < len(add) && add[k].id < id {
			out = appendPosting(out, prev, add[k])
			prev = add[k].id
			k++
		}
		if drop[id] || k < len(add) && add[k].id == id {
			return
		}
		out = appendPosting(out, prev, posting{id, *tf})
		prev = id
	})
	for ; k < len(add); k++ {
		out = appendPosting(out, prev, add[k])
		prev = add[k].id
	}
	return out, err
}

// doc is what a search knows of a fact without reading its row.
type doc struct {
	present               bool
	pinned                bool
	superseded            bool   // metadata.superseded_by is set: returned only with Query.AllVersions
	project, typ          uint32 // indexes into docTable's projects and types
	updated               uint32 // days since 1970-01-01 of metadata.updated, plus one; 0 when none
	lens                  [numFields]uint32
	projectName, typeName string
}

// docTable is every fact of the index by row id, with the average length
// of each field.
type docTable struct {
	docs     []doc // by id
	count    int
	avg      [numFields]float64
	projects []string
	types    []string
}

// newDoc returns the doc of memory m.
func newDoc(m *index.Memory, lens [numFields]uint32) doc {
	d := doc{present: true, pinned: m.Pinned, superseded: m.Superseded(), lens: lens, projectName: m.Scope(), typeName: m.Type}
	if t, err := time.Parse(time.DateOnly, m.UpdatedDate()); err == nil {
		d.updated = uint32(t.Unix()/86400 + 1)
	}
	return d
}

// set puts d at id.
func (t *docTable) set(id int64, d doc) {
	for int64(len(t.docs)) <= id {
		t.docs = append(t.docs, doc{})
	}
	t.docs[id] = d
}

func (t *docTable) remove(id int64) {
	if id < int64(len(t.docs)) {
		t.docs[id] = doc{}
	}
}

// maxID is the highest id in use, 0 when none.
func (t *docTable) maxID() int64 {
	for i := len(t.docs) - 1; i > 0; i-- {
		if t.docs[i].present {
			return int64(i)
		}
	}
	return 0
}

// encode returns the table as a blob: the project and type names, then
// each present fact's id difference, project, type, updated<<2|superseded<<1|pinned and
// field lengths.
func (t *docTable) encode() []byte {
	projects, types := map[string]uint32{}, map[string]uint32{}
	var pl, tl []string
	for i := range t.docs {
		d := &t.docs[i]
		if !d.present {
			continue
		}
		if _, ok := projects[d.projectName]; !ok {
			projects[d.projectName] = uint32(len(pl))
			pl = append(pl, d.projectName)
		}
		if _, ok := types[d.typeName]; !ok {
			types[d.typeName] = uint32(len(tl))
			tl = append(tl, d.typeName)
		}
	}
	var b []byte
	for _, list := range [][]string{pl, tl} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, s := range list {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	var prev int64
	for i := range t.docs {
		d := &t.docs[i]
		if !d.present {
			continue
		}
		b = binary.AppendUvarint(b, uint64(int64(i)-prev))
		prev = int64(i)
		b = binary.AppendUvarint(b, uint64(projects[d.projectName]))
		b = binary.AppendUvarint(b, uint64(types[d.typeName]))
		flag := uint64(d.updated) << 2
		if d.superseded {
			flag |= 2
		}
		if d.pinned {
			flag |= 1
		}
		b = binary.AppendUvarint(b, flag)
		for _, n := range d.lens {
			b = binary.AppendUvarint(b, uint64(n))
		}
	}
	return b
}

// decodeDocTable reads a blob of encode.
func decodeDocTable(b []byte) (*docTable, error) {
	t := &docTable{}
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	for _, list := range []*[]string{&t.projects, &t.types} {
		n, ok := next()
		if !ok && len(b) == 0 {
			return t, nil // an empty table
		}
		for ; ok && n > 0; n-- {
			l, ok2 := next()
			if !ok2 || uint64(len(b)) < l {
				return nil, errBadPostings
			}
			*list = append(*list, string(b[:l]))
			b = b[l:]
		}
		if !ok {
			return nil, errBadPostings
		}
	}
	var id int64
	var sums [numFields]float64
	// Each doc takes at least a byte per value: one allocation holds them
	// all where growing by append copied the table over and over.
	t.docs = make([]doc, 0, len(b)/(4+numFields)+2)
	for len(b) > 0 {
		var v [4 + numFields]uint64
		for i := range v {
			x, ok := next()
			if !ok {
				return nil, errBadPostings
			}
			v[i] = x
		}
		id += int64(v[0])
		if v[1] >= uint64(len(t.projects)) || v[2] >= uint64(len(t.types)) || id > 1<<31 {
			return nil, errBadPostings
		}
		d := doc{present: true, project: uint32(v[1]), typ: uint32(v[2]), updated: uint32(v[3] >> 2), superseded: v[3]&2 != 0, pinned: v[3]&1 == 1}
		d.projectName, d.typeName = t.projects[d.project], t.types[d.typ]
		for f := range d.lens {
			d.lens[f] = uint32(v[4+f])
			sums[f] += float64(v[4+f])
		}
		t.set(id, d)
		t.count++
	}
	for f := range sums {
		if t.count > 0 {
			t.avg[f] = sums[f] / float64(t.count)
		}
	}
	return t, nil
}

// updatedDate is d's metadata.updated as "YYYY-MM-DD", "" when none.
func (d *doc) updatedDate() string {
	if d.updated == 0 {
		return ""
	}
	return time.Unix(int64(d.updated-1)*86400, 0).UTC().Format(time.DateOnly)
}

// formEdit is what a change does to one term's postings.
type formEdit struct {
	drop map[int64]bool
	add  []posting
}

// edits collects the formEdits of a change, by term.
type edits map[string]*formEdit

func (e edits) get(form string) *formEdit {
	fe := e[form]
	if fe == nil {
		fe = &formEdit{}
		e[form] = fe
	}
	return fe
}

func (e edits) dropDoc(id int64, forms map[string]*tfs) {
	for form := range forms {
		fe := e.get(form)
		if fe.drop == nil {
			fe.drop = make(map[int64]bool)
		}
		fe.drop[id] = true
	}
}

func (e edits) addDoc(id int64, forms map[string]*tfs) {
	for form, tf := range forms {
		fe := e.get(form)
		fe.add = append(fe.add, posting{id, *tf})
	}
}

// sortedForms returns the terms of e in order, each one's additions
// sorted by id.
func (e edits) sortedForms() []string {
	forms := make([]string, 0, len(e))
	for form, fe := range e {
		forms = append(forms, form)
		slices.SortFunc(fe.add, func(a, b posting) int { return int(a.id - b.id) })
	}
	slices.Sort(forms)
	return forms
}

// describeFields names the fields a term occurs in.
func describeFields(tf tfs) string {
	var parts []string
	for f, n := range tf {
		if n > 0 {
			s := fieldNames[f]
			if n > 1 {
				s += "×" + strconv.Itoa(int(n))
			}
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}
