package watcher

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNotifyWatcherErrorsNeverBlockAdd reproduces an fsnotify (inotify)
// behaviour: the IN_MOVE_SELF of a directory that was deleted right after it
// moved makes fsnotify send an error while holding the lock Add needs. The
// adapter must take such errors at once, or an Add from the one goroutine
// that reads errors would wait forever.
func TestNotifyWatcherErrorsNeverBlockAdd(t *testing.T) {
	top := t.TempDir()
	mkdirs(t, top, "blocker", "sub")
	fw, err := newNotifyWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	for _, d := range []string{"blocker", "sub"} {
		if err := fw.Add(filepath.Join(top, d)); err != nil {
			t.Fatal(err)
		}
	}
	// Nobody reads events yet: fsnotify blocks on sending this one while the
	// kernel queues the move and the deletion behind it.
	if err := os.WriteFile(filepath.Join(top, "blocker", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(top, "sub"), filepath.Join(top, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(top, "gone")); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() { // read events, never errors
		for {
			select {
			case <-fw.events():
			case <-stop:
				return
			}
		}
	}()

	limit := time.Now().Add(deadline)
	for i := 0; ; i++ {
		added := make(chan error, 1)
		go func() { added <- fw.Add(top) }()
		select {
		case err := <-added:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Until(limit)):
			go func() { // unblock fsnotify so that Close can return
				for {
					select {
					case <-fw.errors():
					case <-stop:
						return
					}
				}
			}()
			t.Fatal("Add blocked: fsnotify is stuck sending an error nobody reads")
		}
		select {
		case err := <-fw.errors():
			t.Logf("fsnotify error after %d adds: %v", i+1, err)
			return
		default:
		}
		if time.Now().After(limit) {
			t.Skip("fsnotify reported no error for the moved-then-deleted directory on this system")
		}
		time.Sleep(time.Millisecond) // pacing the probe, not an assertion
	}
}
