package install

import (
	"bytes"
	"fmt"
	"strings"
)

// This file is the marked block memoryd keeps in a file of an agent's
// (Codex's AGENTS.md and config.toml): find it, put it, remove it, and
// say what looks like a stray marker.

// A block is whole lines: the begin line, the body, the end line. Only a
// well-formed block memoryd wrote is memoryd's: the begin line and the end
// line exactly as memoryd writes them, in that order, no other marker line
// between them, and a body valid says memoryd wrote. Any other line that
// looks like a marker (a half-deleted block, a marker quoted in the user's
// text) is the user's: left alone, and reported (stray).
type markers struct {
	begin, end string
	valid      func(body string) bool
}

// markerLike reports whether a line (without its newline) looks like one
// of m's marker lines.
func (m markers) markerLike(line string) bool {
	head, _, _ := strings.Cut(m.begin, ":")
	return strings.HasPrefix(strings.TrimSpace(line), head+":")
}

// scan finds m's blocks in data. ok is true when there is exactly one
// well-formed block, spanning start to stop (the end line's newline
// included); stray are the 1-based numbers of the marker-like lines
// outside it (all of them when there is no single block), and blocks is
// how many well-formed blocks there are.
func (m markers) scan(data []byte) (start, stop int, ok bool, stray []int, blocks int) {
	type line struct {
		off, next, n int
		text         string
	}
	var marks []line
	for off, n := 0, 1; off < len(data); n++ {
		l, next := lineAt(data, off)
		text := string(bytes.TrimRight(l, "\r"))
		if m.markerLike(text) {
			marks = append(marks, line{off, next, n, text})
		}
		off = next
	}
	inBlock := map[int]bool{}
	for i := 0; i+1 < len(marks); i++ {
		b, e := marks[i], marks[i+1]
		if b.text != m.begin || e.text != m.end {
			continue
		}
		if m.valid != nil && !m.valid(string(data[b.next:e.off])) {
			continue
		}
		blocks++
		start, stop = b.off, e.next
		inBlock[i], inBlock[i+1] = true, true
		i++
	}
	ok = blocks == 1
	for i, l := range marks {
		if !ok || !inBlock[i] {
			stray = append(stray, l.n)
		}
	}
	if !ok {
		start, stop = 0, 0
	}
	return start, stop, ok, stray, blocks
}

// findBlock returns the byte span of m's one well-formed block in data
// (see scan).
func findBlock(data []byte, m markers) (start, stop int, ok bool) {
	start, stop, ok, _, _ = m.scan(data)
	return start, stop, ok
}

// lineAt returns the line starting at off, without its newline, and the
// offset of the next line.
func lineAt(data []byte, off int) ([]byte, int) {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		return data[off:], len(data)
	}
	return data[off : off+i], off + i + 1
}

// errSeveralBlocks is put's answer when data holds more than one block
// that looks like memoryd's: it cannot tell which one it wrote.
func errSeveralBlocks(n int) error {
	return fmt.Errorf("it holds %d blocks that look like memoryd's and memoryd cannot tell which one it wrote: "+
		"delete all but one (or all of them), then install again", n)
}

// put returns data with the block holding body: replaced where it is, else
// appended (marker lines of the user's stay as they are). More than one
// well-formed block is an error.
func (m markers) put(data []byte, body string) ([]byte, error) {
	block := m.begin + "\n" + body
	if body != "" && !strings.HasSuffix(body, "\n") {
		block += "\n"
	}
	block += m.end + "\n"
	start, stop, ok, _, blocks := m.scan(data)
	if blocks > 1 {
		return nil, errSeveralBlocks(blocks)
	}
	if ok {
		return append(append(bytes.Clone(data[:start]), block...), data[stop:]...), nil
	}
	// After a blank line; after text without a final newline, right on
	// the next line, so that remove can tell the two apart.
	if len(data) == 0 {
		return []byte(block), nil
	}
	return append(append(bytes.Clone(data), '\n'), block...), nil
}

// remove returns data without the block and the newline put added before
// it; data as it is without one well-formed block.
func (m markers) remove(data []byte) []byte {
	start, stop, ok := findBlock(data, m)
	if !ok {
		return data
	}
	before, after := data[:start], data[stop:]
	switch {
	case len(after) > 0 && after[0] != '\n' && !bytes.HasPrefix(after, []byte("\r\n")):
	case bytes.HasSuffix(before, []byte("\n\n")):
		before = before[:len(before)-1] // the blank line before the block
	case len(after) == 0 && bytes.HasSuffix(before, []byte("\n")) && !bytes.HasSuffix(before, []byte("\r\n")):
		before = before[:len(before)-1] // the file had no final newline
	}
	return append(bytes.Clone(before), after...)
}

// body returns the block's body, and whether there is a block.
func (m markers) body(data []byte) (string, bool) {
	start, stop, ok := findBlock(data, m)
	if !ok {
		return "", false
	}
	_, first := lineAt(data, start)
	inner := data[first:stop]
	inner = inner[:bytes.LastIndex(bytes.TrimRight(inner, "\n"), []byte("\n"))+1]
	return string(inner), true
}

// strayNote says, for install's report, which marker lines of data are
// not memoryd's block and were left alone ("" when there are none).
func (m markers) strayNote(data []byte) string {
	_, _, _, stray, _ := m.scan(data)
	if len(stray) == 0 {
		return ""
	}
	nums := make([]string, len(stray))
	for i, n := range stray {
		nums[i] = fmt.Sprint(n)
	}
	return "a memoryd marker that is not memoryd's own block, left alone: line " + strings.Join(nums, ", ")
}
