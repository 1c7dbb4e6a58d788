package search

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/needtool"
)

// Environment of a child process started by these tests.
const (
	childEnv     = "MEMORYD_SEARCH_TEST_CHILD" // iterations of the child's loop
	childMemory  = "MEMORYD_SEARCH_TEST_MEMORY"
	childState   = "MEMORYD_SEARCH_TEST_STATE"
	childWantHit = "prefers-tabs"
)

func TestMain(m *testing.M) {
	if n := os.Getenv(childEnv); n != "" {
		os.Exit(child(n))
	}
	code := needtool.Run(m)
	for _, f := range afterTests {
		f()
	}
	os.Exit(code)
}

// afterTests are run by TestMain when every test and benchmark is done.
var afterTests []func()

// child is a `memoryd search` run n times over: Find.
// Every search must find the tabs fact.
func child(n string) int {
	iterations, _ := strconv.Atoi(n)
	ctx := context.Background()
	for i := range iterations {
		hits, err := Find(ctx, os.Getenv(childState), os.Getenv(childMemory), Query{Words: "tabs", All: true})
		if err != nil {
			fmt.Fprintf(os.Stderr, "iteration %d: %v\n", i, err)
			return 1
		}
		if !slices.ContainsFunc(hits, func(h Hit) bool { return h.Name == childWantHit }) {
			fmt.Fprintf(os.Stderr, "iteration %d: %s not found: %+v\n", i, childWantHit, hits)
			return 1
		}
	}
	return 0
}

// startChildren starts n processes running child for iterations each and
// returns a function that waits for them, failing the test on an error.
func startChildren(t *testing.T, f *folder, n, iterations int) (wait func()) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for range n {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+strconv.Itoa(iterations),
			childMemory+"="+f.memoryDir, childState+"="+f.stateDir)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	return func() {
		t.Helper()
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("child %d: %v", i, err)
			}
		}
	}
}

// TestProcessesShareTheIndex is the daemon syncing changes, and now and
// then the index being deleted, while commands in other processes open the
// index, bring it up to date and search it.
func TestProcessesShareTheIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	f := newFolder(t, tabsFact)
	for i := range 200 {
		f.write(fact{"user", fmt.Sprintf("filler-%03d", i), "Filler", "", "Words to fill the index."})
	}
	store := index.NewStore(f.memoryDir)
	if err := store.Scan(); err != nil {
		t.Fatal(err)
	}
	x := f.open()
	if err := x.Sync(context.Background(), store.Snapshot()); err != nil {
		t.Fatal(err)
	}
	wait := startChildren(t, f, 3, 30)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { wait(); close(done) })
	for i := 0; ; i++ {
		select {
		case <-done:
			wg.Wait()
			if err := x.Fresh(context.Background()); err != nil {
				t.Fatal(err)
			}
			checkIntegrity(t, f.dbPath())
			if got := find(t, x, Query{Words: "filler", Limit: MaxLimit}); len(got) != 200 {
				t.Errorf("%d fillers found at the end, want 200", len(got))
			}
			return
		default:
		}
		rel := f.write(fact{"user", fmt.Sprintf("filler-%03d", i%200), "Filler", "", fmt.Sprintf("Words to fill the index, version %d.", i)})
		if err := store.Refresh(rel); err != nil {
			t.Fatal(err)
		}
		if err := x.Sync(context.Background(), store.Snapshot()); err != nil {
			t.Fatalf("Sync: %v", err)
		}
		if i%10 == 9 {
			removeIndex(t, f)
		}
		time.Sleep(5 * time.Millisecond) // pace the writer; nothing is asserted on time
	}
}

// TestProcessesRecoverAtOnce starts several commands on a corrupt index at
// the same moment: each must find its facts, and the index end up whole.
func TestProcessesRecoverAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	f := newFolder(t, tabsFact)
	for i := range 100 {
		f.write(fact{"user", fmt.Sprintf("filler-%03d", i), "Filler", "", "Words to fill the index."})
	}
	if err := os.MkdirAll(f.stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		writeFile(t, f.dbPath(), []byte("this is not a database, but it is long enough to look like a header or two\n"))
		startChildren(t, f, 4, 2)()
		checkIntegrity(t, f.dbPath())
	}
}
