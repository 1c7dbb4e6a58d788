package usage

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

func TestRecordRead(t *testing.T) {
	l := Open(filepath.Join(t.TempDir(), "state"))
	got, err := l.Read()
	if err != nil || len(got) != 0 {
		t.Fatalf("empty log: %v, %v", got, err)
	}
	must(t, l.Record(Search, t0, "user-a.md", "sub/b.md"))
	must(t, l.Record(Read, t0.Add(time.Hour), "user-a.md"))
	must(t, l.Record(Context, t0.Add(2*time.Hour), "user-a.md", "bad name.md"))
	got, err = l.Read()
	must(t, err)
	if a := got["user-a.md"]; a.Uses != 3 || a.Active != 2 || !a.Last.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("user-a.md: %+v", a)
	}
	if b := got["sub/b.md"]; b.Uses != 1 || !b.Last.Equal(t0) {
		t.Errorf("sub/b.md: %+v", b)
	}
	if len(got) != 2 {
		t.Errorf("counted %v", got)
	}
}

// A crash mid-write leaves a torn last line: it is skipped, and a line
// appended after it by another process is not mistaken for part of it.
func TestTornLineIgnored(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir)
	must(t, l.Record(Search, t0, "user-a.md"))
	f, err := os.OpenFile(filepath.Join(dir, LogFile), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	f.WriteString("1793613600 sea")
	f.Close()
	got, err := l.Read()
	must(t, err)
	if got["user-a.md"].Uses != 1 || len(got) != 1 {
		t.Fatalf("torn last line counted: %v", got)
	}
	must(t, l.Record(Read, t0, "user-a.md"))
	got, err = l.Read()
	must(t, err)
	if got["user-a.md"].Uses != 1 || len(got) != 1 { // "…seaNNN read user-a.md" has four fields
		t.Fatalf("line after the torn one: %v", got)
	}
	must(t, l.Record(Read, t0, "user-a.md"))
	if got, _ = l.Read(); got["user-a.md"].Uses != 2 {
		t.Fatalf("after: %v", got)
	}
}

func TestFold(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir)
	l.foldAt = 200
	for i := range 50 {
		must(t, l.Record(Search, t0.Add(time.Duration(i)*time.Second), "project-x.md"))
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		t.Fatalf("no summary after 50 uses: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, LogFile)); err == nil && fi.Size() >= 200 {
		t.Fatalf("log not folded: %d bytes", fi.Size())
	}
	got, err := l.Read()
	must(t, err)
	if u := got["project-x.md"]; u.Uses != 50 || u.Active != 50 || !u.Last.Equal(t0.Add(49*time.Second)) {
		t.Fatalf("after folds: %+v", u)
	}
}

// A fold that crashed after writing the summary and before removing the
// log it renamed aside does not count that log twice; one that crashed
// before writing the summary does not lose it.
func TestFoldCrash(t *testing.T) {
	for _, summaryWritten := range []bool{false, true} {
		t.Run(strconv.FormatBool(summaryWritten), func(t *testing.T) {
			dir := t.TempDir()
			l := Open(dir)
			l.foldAt = 1 << 30
			must(t, l.Record(Search, t0, "a.md", "a.md", "b.md"))
			data, err := os.ReadFile(filepath.Join(dir, LogFile))
			must(t, err)
			must(t, os.Rename(filepath.Join(dir, LogFile), filepath.Join(dir, foldingFile)))
			if summaryWritten {
				all := map[string]Use{}
				addLines(data, all)
				must(t, os.WriteFile(filepath.Join(dir, SummaryFile), formatSummary(all, sum(data)), 0o600))
			}
			must(t, l.Record(Read, t0, "a.md"))
			check := func(when string) {
				got, err := l.Read()
				must(t, err)
				if got["a.md"].Uses != 3 || got["b.md"].Uses != 1 {
					t.Fatalf("%s: %v", when, got)
				}
			}
			check("before the next fold")
			l.foldAt = 1
			must(t, l.Record(Read, t0, "c.md"))
			if _, err := os.Stat(filepath.Join(dir, foldingFile)); err == nil {
				t.Fatal("the crashed fold's log is still there")
			}
			check("after the next fold")
		})
	}
}

// Several processes count at once, folding the log as they go: every use
// is counted exactly once.
func TestConcurrentProcesses(t *testing.T) {
	if dir := os.Getenv("USAGE_TEST_DIR"); dir != "" {
		t.Skip("helper process")
	}
	dir := t.TempDir()
	exe, err := os.Executable()
	must(t, err)
	const procs, each = 6, 300
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(exe, "-test.run", "^TestHelperRecord$")
			cmd.Env = append(os.Environ(), "USAGE_TEST_DIR="+dir, "USAGE_TEST_N="+strconv.Itoa(each), "USAGE_TEST_P="+strconv.Itoa(p))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[p] = fmt.Errorf("process %d: %v\n%s", p, err, out)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	got, err := Open(dir).Read()
	must(t, err)
	if u := got["shared.md"]; u.Uses != procs*each {
		t.Errorf("shared.md: %d uses, want %d", u.Uses, procs*each)
	}
	for p := range procs {
		if u := got[fmt.Sprintf("own-%d.md", p)]; u.Uses != each || u.Active != each {
			t.Errorf("own-%d.md: %+v, want %d", p, u, each)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		t.Errorf("the log was never folded: %v", err)
	}
}

// TestHelperRecord is one counting process of TestConcurrentProcesses.
func TestHelperRecord(t *testing.T) {
	dir := os.Getenv("USAGE_TEST_DIR")
	if dir == "" {
		t.Skip("run by TestConcurrentProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv("USAGE_TEST_N"))
	l := Open(dir)
	l.foldAt = 4096 // fold often, while the others append
	for i := range n {
		must(t, l.Record(Search, t0.Add(time.Duration(i)*time.Second), "shared.md", "own-"+os.Getenv("USAGE_TEST_P")+".md"))
	}
}

func TestTouched(t *testing.T) {
	made := t0
	if got := Touched(Use{}, made); !got.Equal(made) {
		t.Errorf("never used: %v", got)
	}
	if got := Touched(Use{Uses: 1, Last: t0.Add(time.Hour)}, made); !got.Equal(t0.Add(time.Hour)) {
		t.Errorf("used: %v", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkRead is reading the counts at their largest: a summary of
// 10,000 facts and a log just under FoldAt. The index budget reads them
// when a fact changed; list, show and status on every call.
func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	l := Open(dir)
	all := map[string]Use{}
	for i := range 10_000 {
		all[fmt.Sprintf("reference-fact-%05d.md", i)] = Use{Uses: i, Active: i / 2, Last: t0}
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), formatSummary(all, "x"), 0o600); err != nil {
		b.Fatal(err)
	}
	l.foldAt = 1 << 30
	files := make([]string, 10)
	for n := 0; n < FoldAt/400; n++ {
		for i := range files {
			files[i] = fmt.Sprintf("reference-fact-%05d.md", (n*10+i)%10_000)
		}
		if err := l.Record(Search, t0, files...); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if got, err := l.Read(); err != nil || len(got) != 10_000 {
			b.Fatalf("%d facts, %v", len(got), err)
		}
	}
}
