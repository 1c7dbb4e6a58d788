package facts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The copy is made in a state folder that did not exist yet, private, with
// the fact's bytes and its file name.
func TestNewCopy(t *testing.T) {
	sd := filepath.Join(t.TempDir(), "state")
	p, err := NewCopy(sd, "app/project-deploy.md", []byte("fact\n"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	fi, serr := os.Stat(sd)
	if err != nil || string(data) != "fact\n" || filepath.Dir(p) != sd || !strings.HasSuffix(p, "-project-deploy.md") ||
		serr != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("copy %s: %q, %v; state folder %v %v", p, data, err, fi.Mode(), serr)
	}
}
