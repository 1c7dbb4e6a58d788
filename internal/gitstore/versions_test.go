package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesAt reads memory files as a commit left them and as its parent
// had them, in a memory folder below the top of the repository: absent
// before the root commit, changed, deleted; a link or a file over the
// limit is an error.
func TestFilesAt(t *testing.T) {
	root, dir := newRepo(t, "notes/memory")
	write(t, filepath.Join(dir, "user-a.md"), "one\n")
	first := commitAll(t, root, "first")
	write(t, filepath.Join(dir, "user-a.md"), "two\n")
	write(t, filepath.Join(dir, "user-b.md"), "bee\n")
	second := commitAll(t, root, "second")
	remove(t, filepath.Join(dir, "user-b.md"))
	if err := os.Symlink("user-a.md", filepath.Join(dir, "user-link.md")); err != nil {
		t.Fatal(err)
	}
	third := commitAll(t, root, "third")
	r, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := func(s string) Version { return Version{Data: []byte(s), OK: true} }
	for _, c := range []struct {
		hash       string
		in, before map[string]Version
	}{
		{first, map[string]Version{"user-a.md": v("one\n"), "user-b.md": {}}, map[string]Version{}},
		{second, map[string]Version{"user-a.md": v("two\n"), "user-b.md": v("bee\n")},
			map[string]Version{"user-a.md": v("one\n"), "user-b.md": {}}},
	} {
		in, before, err := r.FilesAt(c.hash, []string{"user-a.md", "user-b.md"}, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range []struct{ got, want map[string]Version }{{in, c.in}, {before, c.before}} {
			if len(got.got) != len(got.want) {
				t.Errorf("%s: %d files, want %d", c.hash, len(got.got), len(got.want))
			}
			for f, w := range got.want {
				if !got.got[f].Same(w) {
					t.Errorf("%s: %s = %+v, want %+v", c.hash, f, got.got[f], w)
				}
			}
		}
	}
	if in, before, err := r.FilesAt(third, []string{"user-b.md"}, 100); err != nil || in["user-b.md"].OK || !before["user-b.md"].Same(v("bee\n")) {
		t.Errorf("a deletion: %+v, %+v, %v", in, before, err)
	}
	if _, _, err := r.FilesAt(third, []string{"user-link.md"}, 100); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a link: %v", err)
	}
	if _, _, err := r.FilesAt(second, []string{"user-b.md"}, 3); err == nil || !strings.Contains(err.Error(), "larger than a memory file") {
		t.Errorf("over the limit: %v", err)
	}
}
