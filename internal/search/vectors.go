package search

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// The vectors a long-lived Index (the daemon, an MCP server) holds in
// memory: every stored vector of one model and dimension, int8 with one
// scale per vector (a quarter of float32's bytes: 10,000 facts × 768
// dimensions in 7.7 MB), by the fact's content hash. They are read once,
// and after that only the rows stored since (vector.id above the highest
// read: FillVectors numbers its rows from meta's vector_seq, so an id is
// never given twice while the index lives), when another commit makes a
// search read the index's view again. The cosines computed from them
// differ from float32's by about 0.005 (TestQuantizedCosine): ranks move
// only between facts that close.

// vecStore is the vectors read so far, by the fact's content hash.
type vecStore struct {
	model  string
	dim    int
	seq    int64 // the highest vector.id read
	byHash map[string]*factVecs
}

// factVecs is one fact's vectors: its whole text first, then its passages
// (factTexts). Value j of row r is data[r*dim+j] × scale[r]; bits holds
// each row's signs, (dim+63)/64 words a row, for vectorTop's first pass.
type factVecs struct {
	data  []int8
	scale []float32
	bits  []uint64
}

// vectors are the stored vectors of one model and dimension as a search
// of one view of the index reads them: by fact row id, nil for a fact
// without any.
type vectors struct {
	model string
	dim   int
	byID  []*factVecs
	count int // facts with vectors
}

// readVectors returns the vectors of model and dim for the facts indexed,
// from v when read already, else from x.vecs and the rows stored since.
func (x *Index) readVectors(ctx context.Context, conn *sql.Conn, v *view, model string, dim int) (*vectors, error) {
	if vs := v.vectors; vs != nil && vs.model == model && vs.dim == dim {
		return vs, nil
	}
	seq, err := vectorSeq(ctx, conn)
	if err != nil {
		return nil, err
	}
	st := x.vecs
	if st == nil || st.model != model || st.dim != dim || seq < st.seq {
		st = &vecStore{model: model, dim: dim, byHash: make(map[string]*factVecs)}
	}
	x.vecs = nil // until read whole: a failed read leaves nothing half read
	if err := st.readSince(ctx, conn); err != nil {
		return nil, err
	}
	vs := &vectors{model: model, dim: dim, byID: make([]*factVecs, len(v.docs.docs))}
	rows, err := conn.QueryContext(ctx, `SELECT id, hash FROM fact`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var id int32
	var hash string
	for rows.Next() {
		if err := rows.Scan(&id, &hash); err != nil {
			return nil, err
		}
		if fv := st.byHash[hash]; fv != nil && int(id) < len(vs.byID) {
			vs.byID[id], vs.count = fv, vs.count+1
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Vectors of facts gone are kept (a fact may come back), up to as many
	// again as are used: past that, the next read starts over.
	if len(st.byHash) <= 2*vs.count+100 {
		x.vecs = st
	}
	v.vectors = vs
	return vs, nil
}

// vectorSeq is the highest vector.id given: meta's vector_seq, or the
// table's highest id when it is higher (rows of an older build).
func vectorSeq(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var seq, top sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vector_seq'`).Scan(&seq)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if err := q.QueryRowContext(ctx, `SELECT max(id) FROM vector`).Scan(&top); err != nil {
		return 0, err
	}
	return max(seq.Int64, top.Int64), nil
}

// readSince reads the rows of st's model and dimension stored since st.seq.
func (st *vecStore) readSince(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, `SELECT id, hash, data FROM vector WHERE model = ? AND dim = ? AND id > ? ORDER BY id`,
		st.model, st.dim, st.seq)
	if err != nil {
		return err
	}
	defer rows.Close()
	var id int64
	var hash string
	var b []byte
	for rows.Next() {
		if err := rows.Scan(&id, &hash, &b); err != nil {
			return err
		}
		st.seq = max(st.seq, id)
		if fv := decodeFactVecs(b, st.dim); fv != nil {
			st.byHash[hash] = fv
		}
	}
	return rows.Err()
}

// The bits of float32 0.5 and of a float32's sign.
const (
	half    = 0x3f000000
	signBit = 0x80000000
)

// decodeFactVecs quantizes a stored blob of unit float32 vectors of dim
// values each; nil when it is not that. Two passes a vector: decode and
// find the largest value, then quantize and note the signs (a one-shot
// search quantizes every vector it reads: 10,000 × 768 in 35–40 ms).
func decodeFactVecs(b []byte, dim int) *factVecs {
	if dim <= 0 || len(b) == 0 || len(b)%(4*dim) != 0 {
		return nil
	}
	k, words := len(b)/(4*dim), (dim+63)/64
	fv := &factVecs{data: make([]int8, k*dim), scale: make([]float32, k), bits: make([]uint64, k*words)}
	row := make([]float32, dim)
	for r := range k {
		var m float32
		in := b[4*r*dim : 4*(r+1)*dim]
		for j := range row {
			u := binary.LittleEndian.Uint32(in[4*j : 4*j+4])
			row[j] = math.Float32frombits(u)
			if a := math.Float32frombits(u &^ signBit); a > m {
				m = a
			}
		}
		if m == 0 || m != m || m > math.MaxFloat32 {
			continue // scale 0: never close to anything
		}
		// Without branches on the values' signs: they are as random as
		// a coin, and mispredicted branches made this three times slower.
		inv, out, sign := 127/m, fv.data[r*dim:(r+1)*dim], fv.bits[r*words:(r+1)*words]
		for j, f := range row {
			neg := math.Float32bits(f) & signBit
			out[j] = int8(f*inv + math.Float32frombits(half|neg)) // rounded half away from zero
			sign[j>>6] |= uint64(neg>>31^1) << (j & 63)
		}
		fv.scale[r] = m / 127
	}
	return fv
}

// hamming is the fewest signs any of the fact's vectors differs from q's
// in: the smaller, the closer (the angle is about π × hamming / dim).
func (fv *factVecs) hamming(q []uint64) int {
	best := math.MaxInt
	for r := 0; r+len(q) <= len(fv.bits); r += len(q) {
		d := 0
		for i, w := range fv.bits[r : r+len(q)] {
			d += bits.OnesCount64(w ^ q[i])
		}
		best = min(best, d)
	}
	return best
}

// queryInt8 is a query's unit vector quantized as the facts' are.
type queryInt8 struct {
	data  []int8
	scale float32
	bits  []uint64
}

// quantizeQuery quantizes q exactly as a stored vector is (the same
// signs' rule included).
func quantizeQuery(q []float32) queryInt8 {
	fv := decodeFactVecs(encodeVector(q), len(q))
	if fv == nil {
		return queryInt8{data: make([]int8, len(q))}
	}
	return queryInt8{data: fv.data, scale: fv.scale[0], bits: fv.bits}
}

// best returns the highest cosine between q and the fact's vectors: a long
// fact is as close as its closest passage.
func (fv *factVecs) best(q queryInt8) float32 {
	dim := len(q.data)
	best := float32(math.Inf(-1))
	for r, s := range fv.scale {
		c := float32(dot8(fv.data[r*dim:(r+1)*dim], q.data)) * s * q.scale
		best = max(best, c)
	}
	return best
}

// dot8 is the dot product of two int8 vectors of the same length, eight
// values a step (the compiler then keeps the sums in registers).
func dot8(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += int32(x[0])*int32(y[0]) + int32(x[1])*int32(y[1])
		s1 += int32(x[2])*int32(y[2]) + int32(x[3])*int32(y[3])
		s2 += int32(x[4])*int32(y[4]) + int32(x[5])*int32(y[5])
		s3 += int32(x[6])*int32(y[6]) + int32(x[7])*int32(y[7])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}
