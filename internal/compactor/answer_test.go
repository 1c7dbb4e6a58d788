package compactor

import (
	"errors"
	"reflect"
	"testing"
)

func TestParsePlan(t *testing.T) {
	del := Op{Op: OpDelete, File: "project-old.md", Reason: "stale"}
	cases := []struct {
		name string
		text string
		want []Op
		bad  int
		err  bool
	}{
		{name: "object", text: `{"ops": [{"op": "delete", "file": "project-old.md", "reason": "stale"}]}`, want: []Op{del}},
		{name: "bare array", text: `[{"op": "delete", "file": "project-old.md", "reason": "stale"}]`, want: []Op{del}},
		{name: "fenced", text: "```json\n{\"ops\": [{\"op\": \"delete\", \"file\": \"project-old.md\", \"reason\": \"stale\"}]}\n```", want: []Op{del}},
		{name: "fence without language", text: "```\n[{\"op\": \"delete\", \"file\": \"project-old.md\", \"reason\": \"stale\"}]\n```\n", want: []Op{del}},
		{name: "prose around", text: "Sure! Here it is:\n{\"ops\": [{\"op\": \"delete\", \"file\": \"project-old.md\", \"reason\": \"stale\"}]}\nHope this helps {", want: []Op{del}},
		{name: "single op object", text: `{"op": "delete", "file": "project-old.md", "reason": "stale"}`, want: []Op{del}},
		{name: "upper-case op, file as list", text: `{"ops": [{"op": "DELETE", "files": ["project-old.md"], "reason": "stale"}]}`, want: []Op{del}},
		{name: "files as string", text: `{"ops": [{"op": "flag", "files": "a.md", "note": "n"}]}`, want: []Op{{Op: OpFlag, Files: []string{"a.md"}, Note: "n"}}},
		{name: "merge", text: `{"ops": [{"op": "merge", "files": ["a.md", "b.md"], "into": {"type": "user", "name": "a", "description": "d", "body": "b"}, "reason": "r"}]}`,
			want: []Op{{Op: OpMerge, Files: []string{"a.md", "b.md"}, Into: &Into{Type: "user", Name: "a", Description: "d", Body: "b"}, Reason: "r"}}},
		{name: "body with a code fence", text: "{\"ops\": [{\"op\": \"rewrite\", \"file\": \"a.md\", \"body\": \"Use:\\n```go\\nx := 1\\n```\"}]}",
			want: []Op{{Op: OpRewrite, File: "a.md", Body: "Use:\n```go\nx := 1\n```"}}},
		{name: "fenced, body with a code fence", text: "```json\n{\"ops\": [{\"op\": \"rewrite\", \"file\": \"a.md\", \"body\": \"```sh\\nls\\n```\"}]}\n```",
			want: []Op{{Op: OpRewrite, File: "a.md", Body: "```sh\nls\n```"}}},
		{name: "brackets in prose first", text: "Plan [v2] for {the store}: [1] " + `{"ops": [{"op": "delete", "file": "project-old.md", "reason": "stale"}]}`, want: []Op{del}},
		{name: "array with junk after an op", text: `[{"op": "delete", "file": "project-old.md", "reason": "stale"}, 7]`, want: []Op{del}, bad: 1},
		{name: "empty", text: `{"ops": []}`, want: nil},
		{name: "empty array", text: `[]`, want: nil},
		{name: "null ops", text: `{"ops": null}`, want: nil},
		{name: "one bad element", text: `{"ops": [{"op": "delete", "file": 3}, {"op": "delete", "file": "project-old.md", "reason": "stale"}, "x"]}`, want: []Op{del}, bad: 2},
		{name: "invalid JSON", text: `{"ops": [`, err: true},
		{name: "no JSON", text: `The store is fine.`, err: true},
		{name: "object without ops", text: `{"plan": []}`, err: true},
		{name: "ops not a list", text: `{"ops": {"op": "delete"}}`, err: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ops, bad, err := ParsePlan(tc.text)
			if tc.err {
				if !errors.Is(err, ErrBadPlan) {
					t.Fatalf("err %v, want ErrBadPlan", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ops, tc.want) {
				t.Errorf("ops %+v\nwant %+v", ops, tc.want)
			}
			if len(bad) != tc.bad {
				t.Errorf("bad %q, want %d", bad, tc.bad)
			}
		})
	}
}

func TestOpString(t *testing.T) {
	cases := map[string]Op{
		"merge a.md + b.md -> user-a.md (same)": {Op: OpMerge, Files: []string{"a.md", "b.md"}, Into: &Into{Type: "user", Name: "a"}, Reason: "same"},
		"delete x.md (old line)":                {Op: OpDelete, File: "x.md", Reason: "old\nline"},
		"flag a.md, b.md (they disagree)":       {Op: OpFlag, Files: []string{"a.md", "b.md"}, Note: "they\n disagree"},
		"rewrite u.md":                          {Op: OpRewrite, File: "u.md"},
	}
	for want, op := range cases {
		if got := op.String(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestUnsafeName(t *testing.T) {
	for name, want := range map[string]string{
		"user-a.md":         "",
		"sub/user-a.md":     "",
		"":                  "empty file name",
		"../x.md":           "not a clean path inside the memory folder",
		"sub/../user-a.md":  "not a clean path inside the memory folder",
		"./user-a.md":       "not a clean path inside the memory folder",
		"/etc/passwd":       "absolute path",
		"a\\b.md":           "unsafe characters in the file name",
		"a\x00.md":          "unsafe characters in the file name",
		"MEMORY.md":         "reserved file, never changed by compaction",
		"_CONFLICTS.md":     "reserved file, never changed by compaction",
		"PROTOCOL.md":       "reserved file, never changed by compaction",
		".hidden.md":        "not a memory file",
		"notes.txt":         "not a memory file",
		".git/config":       "not a memory file",
		"user-a.md~":        "not a memory file",
		"sub/.git/HEAD.md":  "not a memory file",
		"sub/MEMORY.md":     "",
		"user-a.md.swp":     "not a memory file",
		"feedback-ü-ß.md":   "",
		"dir//user-a.md":    "not a clean path inside the memory folder",
		"user-a.md/":        "not a clean path inside the memory folder",
		"C:\\x\\user-a.md":  "unsafe characters in the file name",
		"~/user-a.md":       "",
		"user a (copy).md":  "",
		"\tuser-a.md":       "unsafe characters in the file name",
		"user-a.md\n../x":   "unsafe characters in the file name",
		"sub/./user-a.md":   "not a clean path inside the memory folder",
		"..":                "not a clean path inside the memory folder",
		"/":                 "absolute path",
		"sub/../../user.md": "not a clean path inside the memory folder",
	} {
		if got := unsafeName(name); got != want {
			t.Errorf("unsafeName(%q) = %q, want %q", name, got, want)
		}
	}
}
