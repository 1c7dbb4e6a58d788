package compactor

import (
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// item is one memory file and its text as the model sees it.
type item struct {
	mem   *index.Memory
	text  string // render(mem)
	canon string // index.Canonical(mem.Body)
}

// batch is the files of one LLM request.
type batch struct {
	items []item
	size  int             // characters of file text
	files map[string]bool // the files shown, by name
}

func (b *batch) add(it item) {
	b.items = append(b.items, it)
	b.size += len(it.text)
	b.files[it.mem.File] = true
}

// Similarity clustering: two files of the same type are related when the
// Jaccard index of their rare words is at least minSimilarity. Rare words
// appear in at least 2 and at most maxDF(n) files of the type: common words
// would link everything, words in one file link nothing.
const (
	minSimilarity = 0.3
	minWordLen    = 3
)

func maxDF(n int) int { return max(2, min(64, n/8)) }

// makeBatches splits items, sorted by file name, into requests of at most
// budget characters of file text. When everything fits, there is one batch
// with every file. Otherwise files are grouped by type, clustered by
// similarity within a type so that near-duplicates land in the same
// batch, and the clusters are packed in order; a cluster is split only
// when it alone exceeds the budget. Every file is in exactly one batch,
// except those whose text alone exceeds the budget: they are returned in
// tooLarge and sent nowhere, because an op on a file the model saw only in
// part could lose what it did not see. The result is deterministic.
func makeBatches(items []item, budget int) (batches []batch, tooLarge []*index.Memory) {
	total := 0
	fit := items[:0:0]
	for _, it := range items {
		if len(it.text) > budget {
			tooLarge = append(tooLarge, it.mem)
			continue
		}
		fit = append(fit, it)
		total += len(it.text)
	}
	if len(fit) == 0 {
		return nil, tooLarge
	}
	if total <= budget {
		b := batch{files: make(map[string]bool, len(fit))}
		for _, it := range fit {
			b.add(it)
		}
		return []batch{b}, tooLarge
	}
	p := packer{budget: budget}
	for _, group := range byType(fit) {
		for _, cl := range clusters(group) {
			p.place(cl)
		}
	}
	p.flush()
	return p.out, tooLarge
}

// byType groups items by type: the known types in their index order, then
// the others by name. Order within a group is kept.
func byType(items []item) [][]item {
	groups := map[string][]item{}
	for _, it := range items {
		groups[it.mem.Type] = append(groups[it.mem.Type], it)
	}
	var order []string
	for _, t := range index.Types {
		if _, ok := groups[t]; ok {
			order = append(order, t)
		}
	}
	var other []string
	for t := range groups {
		if !slices.Contains(index.Types, t) {
			other = append(other, t)
		}
	}
	slices.Sort(other)
	out := make([][]item, 0, len(groups))
	for _, t := range append(order, other...) {
		out = append(out, groups[t])
	}
	return out
}

// packer fills batches in order.
type packer struct {
	budget int
	cur    batch
	out    []batch
}

func (p *packer) flush() {
	if len(p.cur.items) > 0 {
		p.out = append(p.out, p.cur)
	}
	p.cur = batch{}
}

// place adds a cluster: to the current batch when it fits, else to a new
// one; a cluster larger than a whole batch is spread over several.
func (p *packer) place(cl []item) {
	size := 0
	for _, it := range cl {
		size += len(it.text)
	}
	if p.cur.size+size > p.budget && size <= p.budget {
		p.flush()
	}
	for _, it := range cl {
		if p.cur.size+len(it.text) > p.budget {
			p.flush()
		}
		if p.cur.files == nil {
			p.cur.files = map[string]bool{}
		}
		p.cur.add(it)
	}
}

// clusters partitions items (one type) into groups of similar files,
// ordered by their first member; members keep the items' order.
func clusters(items []item) [][]item {
	n := len(items)
	rare, vocab := rareWords(items)
	postings := make([][]int32, vocab)
	for i, words := range rare {
		for _, w := range words {
			postings[w] = append(postings[w], int32(i))
		}
	}
	uf := newUnionFind(n)
	shared := make([]int32, n)
	var touched []int32
	for i, words := range rare {
		for _, w := range words {
			for _, j := range postings[w] {
				if int(j) <= i {
					continue
				}
				if shared[j] == 0 {
					touched = append(touched, j)
				}
				shared[j]++
			}
		}
		for _, j := range touched {
			s := float64(shared[j])
			if s/(float64(len(words)+len(rare[j]))-s) >= minSimilarity {
				uf.union(i, int(j))
			}
			shared[j] = 0
		}
		touched = touched[:0]
	}
	index := map[int]int{} // root → position in out
	var out [][]item
	for i, it := range items {
		r := uf.find(i)
		k, ok := index[r]
		if !ok {
			k = len(out)
			index[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], it)
	}
	return out
}

// rareWords returns, per item, the sorted ids of the words of its name,
// description and body that appear in at least 2 and at most maxDF items,
// and the number of distinct word ids.
func rareWords(items []item) (words [][]int32, vocab int) {
	ids := map[string]int32{}
	words = make([][]int32, len(items))
	var df []int32
	var buf []int32
	for i, it := range items {
		m := it.mem
		head := index.Canonical(strings.ReplaceAll(m.Name, "-", " ") + " " + m.Description)
		buf = buf[:0]
		for _, text := range [2]string{head, it.canon} {
			for w := range strings.FieldsSeq(text) {
				if len(w) < minWordLen {
					continue
				}
				id, ok := ids[w]
				if !ok {
					id = int32(len(ids))
					ids[w] = id
					df = append(df, 0)
				}
				buf = append(buf, id)
			}
		}
		slices.Sort(buf)
		buf = slices.Compact(buf)
		for _, id := range buf {
			df[id]++
		}
		words[i] = slices.Clone(buf)
	}
	limit := int32(maxDF(len(items)))
	for i, w := range words {
		words[i] = slices.DeleteFunc(w, func(id int32) bool { return df[id] < 2 || df[id] > limit })
	}
	return words, len(ids)
}

// unionFind is a disjoint-set forest with path halving; the root of a set
// is always its smallest member, which keeps clusters in item order.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u unionFind) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	u[rb] = ra
}
