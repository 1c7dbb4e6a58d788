package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/install"
)

func TestOpenFilesProblem(t *testing.T) {
	for _, tc := range []struct {
		mem, transcripts int
		limit            uint64
		service          bool
		want             string // in the problem; "" for none
		fix              string
	}{
		{mem: 100, transcripts: 50, limit: 256, want: ""},
		{mem: 150, transcripts: 50, limit: 256, want: "hold 200 files open (memory folder 150, transcript folders 50) and memoryd started from this shell may open at most 256", fix: "ulimit -n 8192"},
		{mem: 7000, limit: 8192, service: true, want: "the launchd agent may open (its NumberOfFiles) at most 8192", fix: "memoryd compact"},
		{mem: 100, transcripts: 7000, limit: 8192, service: true, want: "transcript folders 7000", fix: "move old sessions"},
		{mem: 6144, limit: 8192, want: ""}, // exactly three quarters
	} {
		t.Run(fmt.Sprint(tc.mem, tc.transcripts, tc.limit), func(t *testing.T) {
			problem, fix := openFilesProblem(tc.mem, tc.transcripts, tc.limit, tc.service)
			if tc.want == "" {
				if problem != "" {
					t.Errorf("problem %q", problem)
				}
				return
			}
			if !strings.Contains(problem, tc.want) || !strings.Contains(fix, tc.fix) {
				t.Errorf("problem %q\nfix %q", problem, fix)
			}
		})
	}
}

// TestOpenFilesOnDarwin: a store of 6,500 files with the launchd agent
// installed is near its 8192 open files; on Linux there is no such check.
func TestOpenFilesOnDarwin(t *testing.T) {
	dir := t.TempDir()
	for i := range 6500 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("user-%d.md", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	cfg := config.Default()
	cfg.Extract.Enabled = false
	o := Options{Dir: dir, Config: cfg, Install: install.Options{Home: home, GOOS: "darwin"}}
	check := func() []Finding {
		d := &doctor{ctx: context.Background(), o: o}
		d.openFiles()
		return d.findings
	}
	plist, err := install.ServiceFile(o.Install)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(plist), 0o755)
	os.WriteFile(plist, []byte("<plist/>"), 0o644)
	fs := check()
	if len(fs) != 1 || fs[0].Check != "open files" || !strings.Contains(fs[0].Problem, "hold 6501 files open") ||
		!strings.Contains(fs[0].Problem, "at most 8192") {
		t.Errorf("darwin with the agent: %+v", fs)
	}

	os.Remove(plist) // run by hand: this process's limit, which the test cannot choose
	if fs := check(); len(fs) != 1 || fs[0].Check != "open files" {
		t.Errorf("darwin without the agent: %+v", fs)
	}

	o.Install.GOOS = "linux"
	if fs := check(); len(fs) != 0 {
		t.Errorf("linux: %+v", fs)
	}
}
