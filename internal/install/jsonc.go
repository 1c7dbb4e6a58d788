package install

import (
	"bytes"

	"github.com/tailscale/hujson"
)

// Minimal edits of a hujson tree. hujson keeps every byte of whitespace and
// comments in Extra fields: an item's BeforeExtra (after the previous comma
// or the opening bracket), a composite's AfterExtra (before the closing
// bracket), and, on the last item, a non-nil AfterExtra meaning "a trailing
// comma follows". New items copy the layout of the items already there, so
// a hand-formatted file keeps its look; Format is never called.

// appendStrings appends vals to arr as string elements. unit is one level of
// indentation, used when arr is empty but spans lines.
func appendStrings(arr *hujson.Array, vals []string, unit string) {
	rendered := make([]hujson.ValueTrimmed, len(vals))
	for i, v := range vals {
		rendered[i] = hujson.String(v)
	}
	appendValues(arr, rendered, unit)
}

// appendValues appends vals to arr, each on its own line when arr's
// elements are (a multi-line value must then be rendered for the
// elements' indentation), else on one line.
func appendValues(arr *hujson.Array, vals []hujson.ValueTrimmed, unit string) {
	if len(vals) == 0 {
		return
	}
	befores := make([]hujson.Extra, len(arr.Elements))
	for i, e := range arr.Elements {
		befores[i] = e.BeforeExtra
	}
	trailing := hasTrailingComma(arr.Elements)
	first, next := newItemPrefixes(befores, &arr.AfterExtra, unit)
	for i, v := range vals {
		before := next
		if i == 0 {
			before = first
		}
		arr.Elements = append(arr.Elements, hujson.Value{BeforeExtra: hujson.Extra(before), Value: v})
	}
	if trailing {
		arr.Elements[len(arr.Elements)-1].AfterExtra = hujson.Extra{}
	}
}

// addMember appends `"name": [vals...]` to obj, laid out like obj's other
// members: on its own line with the array spread over lines when obj spans
// lines, else on one line.
func addMember(obj *hujson.Object, name string, vals []string, unit string) {
	addMemberWith(obj, name, unit, func(indent string, multiline bool) hujson.ValueTrimmed {
		arr := &hujson.Array{}
		if multiline {
			arr.AfterExtra = hujson.Extra("\n" + indent) // closing bracket under the key
		}
		appendStrings(arr, vals, unit)
		return arr
	})
}

// addMemberWith appends a member called name to obj, laid out like obj's
// other members; render makes its value for a member line indented by
// indent, multiline when obj spans lines.
func addMemberWith(obj *hujson.Object, name string, unit string, render func(indent string, multiline bool) hujson.ValueTrimmed) {
	befores := make([]hujson.Extra, len(obj.Members))
	for i, m := range obj.Members {
		befores[i] = m.Name.BeforeExtra
	}
	if len(obj.Members) == 0 && !bytes.Contains(obj.AfterExtra, []byte("\n")) {
		obj.AfterExtra = append(hujson.Extra("\n"), obj.AfterExtra...) // "{}" becomes a block
	}
	var trailing bool
	if n := len(obj.Members); n > 0 {
		trailing = obj.Members[n-1].Value.AfterExtra != nil
	}
	first, _ := newItemPrefixes(befores, &obj.AfterExtra, unit)
	indent, multiline := lineIndent([]byte(first))
	value := render(indent, multiline)

	colon := hujson.Extra(" ")
	if n := len(obj.Members); n > 0 && !hasComment(obj.Members[n-1].Value.BeforeExtra) {
		colon = bytes.Clone(obj.Members[n-1].Value.BeforeExtra) // "key":value or "key": value
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: hujson.Extra(first), Value: hujson.String(name)},
		Value: hujson.Value{BeforeExtra: colon, Value: value},
	})
	if trailing {
		obj.Members[len(obj.Members)-1].Value.AfterExtra = hujson.Extra{}
	}
}

// newItemPrefixes returns the BeforeExtra for the first and for further items
// appended to a composite whose items have the given BeforeExtras and whose
// closing bracket follows *closing. Items on their own lines get a newline
// and the last item's indentation; items on one line get a space. A comment
// on the old last item's line (held at the start of *closing) is moved into
// the first prefix so that it stays on that line.
func newItemPrefixes(befores []hujson.Extra, closing *hujson.Extra, unit string) (first, next string) {
	multiline := bytes.Contains(*closing, []byte("\n"))
	for _, b := range befores {
		multiline = multiline || bytes.Contains(b, []byte("\n"))
	}
	if !multiline {
		if len(befores) == 0 {
			return "", " "
		}
		return " ", " "
	}
	closeIndent, _ := lineIndent(*closing)
	indent := closeIndent + unit
	if n := len(befores); n > 0 {
		if in, ok := lineIndent(befores[n-1]); ok {
			indent = in
		}
	}
	next = "\n" + indent
	var head []byte
	if i := bytes.IndexByte(*closing, '\n'); len(befores) > 0 && i > 0 && hasComment((*closing)[:i]) {
		head = bytes.Clone((*closing)[:i])
		*closing = (*closing)[i:]
	}
	return string(head) + next, next
}

// detachItem fixes the layout around item i of a composite before the
// caller deletes it. befores and afters point at each item's BeforeExtra
// and at the extra between its value and its comma (on the last item,
// non-nil means a trailing comma); closing is the extra before the closing
// bracket. Comments on the lines of the removed item and just above it go
// with it; a comment ending the previous item's line stays there; the next
// item, or the closing bracket, keeps its own indentation; a trailing comma
// stays a trailing comma, and none appears where there was none.
func detachItem(befores, afters []*hujson.Extra, closing *hujson.Extra, i int) {
	n := len(befores)
	next := closing
	if i+1 < n {
		next = befores[i+1]
	}
	b := *befores[i]
	if nl := bytes.IndexByte(b, '\n'); nl < 0 {
		if i+1 < n { // one line: the next item takes this one's separator
			*next = append(bytes.Clone(b), bytes.TrimLeft(*next, " \t\r\n")...)
		}
	} else {
		rest := *next
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			rest = rest[j:] // drops the removed item's same-line comment
		}
		*next = append(bytes.Clone(b[:nl]), rest...)
	}
	if i == n-1 && i > 0 {
		prev := afters[i-1]
		switch {
		case *afters[i] == nil:
			*closing = append(bytes.Clone(*prev), *closing...)
			*prev = nil
		case *prev == nil:
			*prev = hujson.Extra{}
		}
	}
}

// lineIndent returns the whitespace that starts the last line of extra, and
// whether extra contains a newline at all.
func lineIndent(extra []byte) (string, bool) {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return "", false
	}
	rest := extra[i+1:]
	n := 0
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	return string(rest[:n]), true
}

// indentUnit guesses one level of indentation from the top-level members of
// obj: their own indentation, else two spaces.
func indentUnit(obj *hujson.Object) string {
	for _, m := range obj.Members {
		if in, ok := lineIndent(m.Name.BeforeExtra); ok && in != "" {
			return in
		}
	}
	return "  "
}

// hasTrailingComma reports whether a comma follows the last of items.
func hasTrailingComma(items []hujson.Value) bool {
	return len(items) > 0 && items[len(items)-1].AfterExtra != nil
}

// hasComment reports whether extra (whitespace and comments only) holds a comment.
func hasComment(extra []byte) bool { return bytes.IndexByte(extra, '/') >= 0 }
