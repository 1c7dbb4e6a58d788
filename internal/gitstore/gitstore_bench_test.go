//go:build unix

package gitstore

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The benchmark repository: a notes repository of benchNotes files in
// benchCommits commits, with a memory folder of benchMemories files that
// every tenth commit touches. It is built once per test binary, with
// git fast-import, only when a benchmark asks for it, and copied for each
// benchmark that writes to it.
const (
	benchNotes    = 20000
	benchMemories = 200
	benchCommits  = 2000
)

var bench struct {
	once sync.Once
	dir  string // the built repository
	err  error
}

func init() {
	benchCleanup = func() {
		if bench.dir != "" {
			os.RemoveAll(filepath.Dir(bench.dir))
		}
	}
}

// benchRepo returns a private copy of the benchmark repository, its index
// refreshed so that no benchmark pays for re-hashing the copied files.
func benchRepo(b *testing.B) (root string) {
	b.Helper()
	bench.once.Do(func() { bench.dir, bench.err = buildBenchRepo() })
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	root = filepath.Join(b.TempDir(), "notes")
	if out, err := exec.Command("cp", "-a", bench.dir, root).CombinedOutput(); err != nil {
		b.Fatalf("copy benchmark repository: %v\n%s", err, out)
	}
	cli(b, root, "update-index", "-q", "--refresh")
	return root
}

func buildBenchRepo() (string, error) {
	tmp, err := os.MkdirTemp("", "gitstore-bench-")
	if err != nil {
		return "", err
	}
	root := filepath.Join(tmp, "notes")
	if _, err := cliErr(tmp, "init", "-q", "-b", "main", root); err != nil {
		return "", err
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", err
	}
	genErr := writeBenchStream(stdin)
	stdin.Close()
	if err := cmd.Wait(); err != nil || genErr != nil {
		return "", fmt.Errorf("fast-import: %v %v\n%s", genErr, err, stderr.String())
	}
	if _, err := cliErr(root, "reset", "-q", "--hard", "main"); err != nil {
		return "", err
	}
	return root, nil
}

// writeBenchStream writes the fast-import stream of the benchmark history:
// one commit with every file, then commits changing five notes each, and
// every tenth one two memory files as well.
func writeBenchStream(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	note := func(i int) string { return fmt.Sprintf("notes/d%03d/note-%05d.md", i%200, i) }
	mem := func(i int) string { return fmt.Sprintf("memory/feedback-item-%03d.md", i) }
	blob := func(path, content string) {
		fmt.Fprintf(bw, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
	}
	for c := 1; c <= benchCommits; c++ {
		msg := fmt.Sprintf("notes %d", c)
		fmt.Fprintf(bw, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n",
			c, 1_600_000_000+c*60, len(msg), msg)
		if c > 1 {
			fmt.Fprintf(bw, "from :%d\n", c-1)
		}
		if c == 1 {
			for i := range benchNotes {
				blob(note(i), noteText(rng, i, 0))
			}
			for i := range benchMemories {
				blob(mem(i), memoryText(i, 0))
			}
			continue
		}
		for range 5 {
			i := rng.IntN(benchNotes)
			blob(note(i), noteText(rng, i, c))
		}
		if c%10 == 0 {
			for range 2 {
				i := rng.IntN(benchMemories)
				blob(mem(i), memoryText(i, c))
			}
		}
	}
	return bw.Flush()
}

func noteText(rng *rand.Rand, i, rev int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Note %d\n\nrevision %d\n\n", i, rev)
	for range 4 + rng.IntN(8) {
		fmt.Fprintf(&b, "- point %d about topic %d, written while thinking about %d\n", rng.IntN(1000), i, rng.IntN(1e6))
	}
	return b.String()
}

func memoryText(i, rev int) string {
	return fmt.Sprintf("---\nname: item-%03d\ndescription: Benchmark memory %d, revision %d\nmetadata:\n  type: feedback\n---\n"+
		"Keep it short and concrete.\nWhy: benchmark fixture %d.\n", i, i, rev, i)
}

// editMemory changes one memory file per iteration.
func editMemory(b *testing.B, root string, i int) {
	p := filepath.Join(root, "memory", fmt.Sprintf("feedback-item-%03d.md", i%benchMemories))
	if err := os.WriteFile(p, []byte(memoryText(i%benchMemories, 1_000_000+i)), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCommitMemoryd is the daemon's flush: Changes, then Commit.
func BenchmarkCommitMemoryd(b *testing.B) {
	root := benchRepo(b)
	r := open(b, filepath.Join(root, "memory"))
	i := 0
	for b.Loop() {
		editMemory(b, root, i)
		i++
		cs, err := r.Changes(tracked)
		if err != nil || len(cs) != 1 {
			b.Fatalf("Changes = %v, %v", cs, err)
		}
		if _, err := r.Commit(context.Background(), CommitMessage([]string{cs[0].Path}), []string{cs[0].Path}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitGitCLI is the baseline: the two git commands a shell
// script would run for the same change.
func BenchmarkCommitGitCLI(b *testing.B) {
	root := benchRepo(b)
	i := 0
	for b.Loop() {
		editMemory(b, root, i)
		i++
		cli(b, root, "add", "-A", "--", "memory")
		cli(b, root, "commit", "-q", "-m", "memory: update", "--", "memory")
	}
}

// BenchmarkCommitPaired alternates the two ways of committing, one
// iteration each on its own copy of the repository, so that load from
// other processes hits both alike, and reports the wall and CPU time
// (this process plus its git children, from getrusage) of each and their
// ratios. On a busy machine its ratios are steadier than those of the two
// separate benchmarks above.
func BenchmarkCommitPaired(b *testing.B) {
	memRoot, cliRoot := benchRepo(b), benchRepo(b)
	r := open(b, filepath.Join(memRoot, "memory"))
	var memWall, cliWall, memCPU, cliCPU time.Duration
	i := 0
	for b.Loop() {
		editMemory(b, memRoot, i)
		editMemory(b, cliRoot, i)
		i++
		w, c := measure(func() {
			cs, err := r.Changes(tracked)
			if err != nil || len(cs) != 1 {
				b.Fatalf("Changes = %v, %v", cs, err)
			}
			if _, err := r.Commit(context.Background(), CommitMessage([]string{cs[0].Path}), []string{cs[0].Path}); err != nil {
				b.Fatal(err)
			}
		})
		memWall, memCPU = memWall+w, memCPU+c
		w, c = measure(func() {
			cli(b, cliRoot, "add", "-A", "--", "memory")
			cli(b, cliRoot, "commit", "-q", "-m", "memory: update", "--", "memory")
		})
		cliWall, cliCPU = cliWall+w, cliCPU+c
	}
	n := float64(i)
	b.ReportMetric(float64(memWall.Nanoseconds())/n, "memoryd-ns/op")
	b.ReportMetric(float64(cliWall.Nanoseconds())/n, "cli-ns/op")
	b.ReportMetric(float64(memWall)/float64(cliWall), "wall-ratio")
	b.ReportMetric(float64(memCPU)/float64(cliCPU), "cpu-ratio")
}

// measure runs f and returns the wall time and the CPU time (user and
// system, of this process and of the children that ended meanwhile).
func measure(f func()) (wall, cpu time.Duration) {
	before := cpuTime()
	start := time.Now()
	f()
	return time.Since(start), cpuTime() - before
}

func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

// BenchmarkChanges is the cost of asking "anything to commit?".
func BenchmarkChanges(b *testing.B) {
	root := benchRepo(b)
	r := open(b, filepath.Join(root, "memory"))
	editMemory(b, root, 7)
	for b.Loop() {
		if cs, err := r.Changes(tracked); err != nil || len(cs) != 1 {
			b.Fatalf("Changes = %v, %v", cs, err)
		}
	}
}

// BenchmarkBusy is the cost of the pre-commit check (it reads the index).
func BenchmarkBusy(b *testing.B) {
	root := benchRepo(b)
	r := open(b, filepath.Join(root, "memory"))
	for b.Loop() {
		if err := r.Busy(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHistory{GoGit,CLI} compare the two ways of listing memory
// commits: the last 20 (among the last ~200 of 2,000 commits), and all of
// them (201, which walks the whole history).
func BenchmarkHistoryGoGit(b *testing.B) {
	root := benchRepo(b)
	r := open(b, filepath.Join(root, "memory"))
	for _, n := range []int{20, 1000} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			want := min(n, benchCommits/10+1)
			for b.Loop() {
				if h, err := r.History(n); err != nil || len(h) != want {
					b.Fatalf("History = %d, %v; want %d", len(h), err, want)
				}
			}
		})
	}
}

func BenchmarkHistoryCLI(b *testing.B) {
	root := benchRepo(b)
	for _, n := range []int{20, 1000} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			want := min(n, benchCommits/10+1)
			for b.Loop() {
				out := cli(b, root, "log", "-n", fmt.Sprint(n), "-z", "--no-renames", "--format=%H%x00%at%x00%s",
					"--name-only", "--relative=memory", "--", "memory")
				if got := strings.Count(out, "\x00\n"); got != want {
					b.Fatalf("git log listed %d commits, want %d", got, want)
				}
			}
		})
	}
}
