package gitstore

import (
	"context"
	"path/filepath"
	"testing"
)

func TestFileLogFollowsRenames(t *testing.T) {
	root, dir := newRepo(t, "memory")
	write(t, filepath.Join(dir, "user-a.md"), "one\n")
	first := commitAll(t, root, "memory: add user-a.md (cli)")
	write(t, filepath.Join(dir, "user-b.md"), "other\n")
	commitAll(t, root, "unrelated")
	cli(t, root, "mv", "memory/user-a.md", "memory/user-renamed.md")
	write(t, filepath.Join(dir, "user-renamed.md"), "one\ntwo\n")
	last := commitAll(t, root, "memory: update user-renamed.md")
	r := open(t, dir)
	log, err := r.FileLog(context.Background(), "user-renamed.md", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Hash != last || log[1].Hash != first || log[1].Files[0] != "user-a.md" || log[0].Files[0] != "user-renamed.md" {
		t.Fatalf("FileLog = %+v", log)
	}
	data, err := r.Show(context.Background(), first, "user-a.md")
	if err != nil || string(data) != "one\n" {
		t.Fatalf("Show = %q, %v", data, err)
	}
}
