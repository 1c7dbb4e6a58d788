package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Edits at a path of nested objects in a JSON or JSONC document, built on
// the minimal edits of jsonc.go: what install adds is rendered in the
// file's own indentation, and removing it gives back the bytes that were
// there before, containers install created included.

// parseObject parses data (nil or blank: an empty object) as a JSONC
// document whose top level is an object.
func parseObject(name string, data []byte) (hujson.Value, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return root, fmt.Errorf("%s: %w", name, err)
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return root, fmt.Errorf("%s: not a JSON object", name)
	}
	return root, nil
}

// packObject returns the document's bytes, checked to be valid JSONC.
func packObject(name string, root hujson.Value) ([]byte, error) {
	out := root.Pack()
	if std, err := hujson.Standardize(bytes.Clone(out)); err != nil || !json.Valid(std) {
		return nil, fmt.Errorf("%s: edit produced invalid JSON (not written)", name)
	}
	return out, nil
}

// member returns the member of obj called name, or nil.
func member(obj *hujson.Object, name string) *hujson.ObjectMember {
	for i := range obj.Members {
		if obj.Members[i].Name.Value.(hujson.Literal).String() == name {
			return &obj.Members[i]
		}
	}
	return nil
}

// walk follows path from obj through nested objects. It returns the
// deepest object reached and the rest of path that does not exist yet; a
// member on the way that is not an object is an error.
func walk(obj *hujson.Object, path []string) (*hujson.Object, []string, error) {
	for i, name := range path {
		m := member(obj, name)
		if m == nil {
			return obj, path[i:], nil
		}
		next, ok := m.Value.Value.(*hujson.Object)
		if !ok {
			if i == len(path)-1 {
				return obj, path[i:], nil // the caller checks the last one
			}
			return nil, nil, fmt.Errorf("%q is not an object", strings.Join(path[:i+1], "."))
		}
		obj = next
	}
	return obj, nil, nil
}

// jsonObject is a JSON object whose members are rendered in order.
type jsonObject []jsonField

type jsonField struct {
	name  string
	value any
}

// MarshalJSON renders the members in order.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(f.name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// nest wraps v in objects named by path, outermost first.
func nest(path []string, v any) any {
	for i := len(path) - 1; i >= 0; i-- {
		v = jsonObject{{path[i], v}}
	}
	return v
}

// renderValue renders v as the value of a member or element whose line is
// indented by indent: spread over lines like the file when multiline.
func renderValue(v any, indent, unit string, multiline bool) hujson.ValueTrimmed {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if multiline {
		enc.SetIndent(indent, unit)
	}
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("install: render %T: %v", v, err)) // only maps, slices and strings come here
	}
	val, err := hujson.Parse(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if err != nil {
		panic(fmt.Sprintf("install: render: %v", err))
	}
	return val.Value
}

// spansLines reports whether obj is laid out over several lines.
func spansLines(obj *hujson.Object) bool {
	if bytes.Contains(obj.AfterExtra, []byte("\n")) {
		return true
	}
	for _, m := range obj.Members {
		if bytes.Contains(m.Name.BeforeExtra, []byte("\n")) {
			return true
		}
	}
	return false
}

// memberIndent is the indentation of obj's members' lines.
func memberIndent(obj *hujson.Object, unit string) string {
	if n := len(obj.Members); n > 0 {
		if in, ok := lineIndent(obj.Members[n-1].Name.BeforeExtra); ok {
			return in
		}
	}
	in, _ := lineIndent(obj.AfterExtra)
	return in + unit
}

// setMember sets obj's member name to v: added at the end, laid out like
// the other members, or its value replaced when it differs. It reports
// whether it changed anything.
func setMember(obj *hujson.Object, name string, v any, unit string) bool {
	multi := spansLines(obj) || len(obj.Members) == 0
	if m := member(obj, name); m != nil {
		if sameJSON(m.Value, v) {
			return false
		}
		in, _ := lineIndent(m.Name.BeforeExtra)
		m.Value.Value = renderValue(v, in, unit, multi)
		return true
	}
	addMemberWith(obj, name, unit, func(indent string, multiline bool) hujson.ValueTrimmed {
		return renderValue(v, indent, unit, multiline)
	})
	return true
}

// setAt sets the member name of the object at path to v, creating the
// objects on the way.
func setAt(root *hujson.Value, path []string, name string, v any, unit string) (bool, error) {
	obj, rest, err := walk(root.Value.(*hujson.Object), path)
	if err != nil {
		return false, err
	}
	if len(rest) > 0 {
		return setMember(obj, rest[0], nest(rest[1:], jsonObject{{name, v}}), unit), nil
	}
	return setMember(obj, name, v, unit), nil
}

// addToArrayAt appends to the array at path each of vals it does not hold
// yet (compared as JSON), creating the array and the objects on the way.
func addToArrayAt(root *hujson.Value, path []string, vals []any, unit string) (bool, error) {
	obj, rest, err := walk(root.Value.(*hujson.Object), path[:len(path)-1])
	if err != nil {
		return false, err
	}
	last := path[len(path)-1]
	if len(rest) > 0 {
		return setMember(obj, rest[0], nest(append(rest[1:], last), vals), unit), nil
	}
	m := member(obj, last)
	if m == nil {
		return setMember(obj, last, vals, unit), nil
	}
	arr, ok := m.Value.Value.(*hujson.Array)
	if !ok {
		return false, fmt.Errorf("%q is not a list", strings.Join(path, "."))
	}
	var missing []any
	for _, v := range vals {
		if !slices.ContainsFunc(arr.Elements, func(e hujson.Value) bool { return sameJSON(e, v) }) {
			missing = append(missing, v)
		}
	}
	if len(missing) == 0 {
		return false, nil
	}
	closeIndent, _ := lineIndent(arr.AfterExtra)
	multi := bytes.Contains(arr.AfterExtra, []byte("\n"))
	indent := closeIndent + unit
	if n := len(arr.Elements); n > 0 {
		if in, ok := lineIndent(arr.Elements[n-1].BeforeExtra); ok {
			indent, multi = in, true
		} else {
			multi = false
		}
	}
	rendered := make([]hujson.ValueTrimmed, len(missing))
	for i, v := range missing {
		rendered[i] = renderValue(v, indent, unit, multi)
	}
	appendValues(arr, rendered, unit)
	return true, nil
}

// removeFromArrayAt removes the elements of the array at path for which
// drop reports true, then the containers on path left empty by that.
func removeFromArrayAt(root *hujson.Value, path []string, drop func(hujson.Value) bool) bool {
	obj, rest, err := walk(root.Value.(*hujson.Object), path[:len(path)-1])
	if err != nil || len(rest) > 0 {
		return false
	}
	m := member(obj, path[len(path)-1])
	if m == nil {
		return false
	}
	arr, ok := m.Value.Value.(*hujson.Array)
	if !ok {
		return false
	}
	removed := false
	for i := len(arr.Elements) - 1; i >= 0; i-- {
		if drop(arr.Elements[i]) {
			removeElement(arr, i)
			removed = true
		}
	}
	if removed {
		prune(root, path)
	}
	return removed
}

// removeAt removes the member name of the object at path, then the
// containers on path left empty by that.
func removeAt(root *hujson.Value, path []string, name string) bool {
	obj, rest, err := walk(root.Value.(*hujson.Object), path)
	if err != nil || len(rest) > 0 || member(obj, name) == nil {
		return false
	}
	removeMember(obj, name)
	prune(root, path)
	return true
}

// prune removes, deepest first, the containers on path that are empty and
// hold no comment.
func prune(root *hujson.Value, path []string) {
	for n := len(path); n > 0; n-- {
		parent, rest, err := walk(root.Value.(*hujson.Object), path[:n-1])
		if err != nil || len(rest) > 0 {
			return
		}
		m := member(parent, path[n-1])
		if m == nil {
			return
		}
		switch c := m.Value.Value.(type) {
		case *hujson.Object:
			if len(c.Members) > 0 || hasComment(c.AfterExtra) {
				return
			}
		case *hujson.Array:
			if len(c.Elements) > 0 || hasComment(c.AfterExtra) {
				return
			}
		default:
			return
		}
		removeMember(parent, path[n-1])
	}
}

// removeElement removes element i of arr (see detachItem for the layout).
func removeElement(arr *hujson.Array, i int) {
	befores := make([]*hujson.Extra, len(arr.Elements))
	afters := make([]*hujson.Extra, len(arr.Elements))
	for j := range arr.Elements {
		befores[j], afters[j] = &arr.Elements[j].BeforeExtra, &arr.Elements[j].AfterExtra
	}
	detachItem(befores, afters, &arr.AfterExtra, i)
	arr.Elements = slices.Delete(arr.Elements, i, i+1)
	if len(arr.Elements) == 0 && !hasComment(arr.AfterExtra) {
		arr.AfterExtra = nil
	}
}

// sameJSON reports whether v, a JSONC value, means the same as w.
func sameJSON(v hujson.Value, w any) bool {
	c := v.Clone()
	c.Standardize()
	var a, b any
	if json.Unmarshal(c.Pack(), &a) != nil {
		return false
	}
	raw, err := json.Marshal(w)
	if err != nil || json.Unmarshal(raw, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// stringValue returns v as a string, and whether it is one.
func stringValue(v hujson.Value) (string, bool) {
	if v.Value.Kind() != '"' {
		return "", false
	}
	return v.Value.(hujson.Literal).String(), true
}

// isEmptyObject reports whether data is an object with nothing in it, not
// even a comment: what is left of a file install created once its
// additions are removed.
func isEmptyObject(data []byte) bool {
	root, err := hujson.Parse(data)
	if err != nil {
		return false
	}
	obj, ok := root.Value.(*hujson.Object)
	return ok && len(obj.Members) == 0 && !hasComment(obj.AfterExtra) && !hasComment(root.BeforeExtra) && !hasComment(root.AfterExtra)
}

// readObjectFile parses the JSONC object in path; a missing file is an
// empty object.
func readObjectFile(path string) (hujson.Value, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return hujson.Value{}, err
	}
	return parseObject(path, data)
}

// stringAt returns the string at the JSON pointer ptr under v.
func stringAt(v hujson.Value, ptr string) (string, bool) {
	f := v.Find(ptr)
	if f == nil {
		return "", false
	}
	return stringValue(*f)
}

// stringsAt returns the strings of the list at the JSON pointer ptr under v.
func stringsAt(v hujson.Value, ptr string) []string {
	f := v.Find(ptr)
	if f == nil {
		return nil
	}
	arr, ok := f.Value.(*hujson.Array)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range arr.Elements {
		if s, ok := stringValue(e); ok {
			out = append(out, s)
		}
	}
	return out
}
