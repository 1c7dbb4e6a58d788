package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// How long LockInstance looks for the text of a holder that has not
// written it yet: a daemon whose state folder was deleted writes it again
// within a second (see Instance.Keep).
const (
	ownerWait  = 2 * time.Second
	ownerPoll  = 25 * time.Millisecond
	probeTries = 3 // a probe holds a lock for an instant: try a few times before refusing
)

// Instance is the single-instance lock of one memory folder's `memoryd
// run`. It is two flocks. One is DaemonLock in the state folder, whose
// holder names itself in DaemonLock+".owner" and which every other memoryd
// command probes. The other is on the memory folder itself (a descriptor of
// the folder), because the state folder can be deleted under a running
// daemon (rm -rf ~/.local/state/memoryd), its lock file with it, and a
// second daemon would then lock a new file beside the first: the memory
// folder cannot go while the daemon serves it, so its lock keeps a second
// daemon out until Keep has taken DaemonLock again on a new file. Neither
// file is ever deleted.
type Instance struct {
	stateDir, owner string
	folder          *flock.Flock // nil when the folder could not be locked
	folderErr       error        // why folder is nil

	mu   sync.Mutex
	file *flock.Flock // DaemonLock
}

// LockInstance takes the single-instance lock of memoryDir, whose state
// folder is stateDir, without waiting; owner describes this process (see
// Owner). When another daemon holds it the error wraps ErrLocked and quotes
// that daemon's text, waiting up to two seconds for the text when a daemon
// holds the folder while its deleted state folder is being recreated.
// Where the folder cannot be locked (flock on a folder over NFS) the lock
// is DaemonLock alone and FolderErr says why.
func LockInstance(stateDir, memoryDir, owner string) (*Instance, error) {
	in := &Instance{stateDir: stateDir, owner: owner}
	fl := flock.New(memoryDir, flock.SetFlag(os.O_RDONLY))
	deadline := time.Now().Add(ownerWait)
	for n := 1; ; n++ {
		ok, err := fl.TryLock()
		if err != nil {
			in.folderErr = fmt.Errorf("lock the memory folder %s: %w", memoryDir, err)
			break
		}
		if ok {
			in.folder = fl
			break
		}
		h := readOwner(stateDir, DaemonLock)
		if h != "" && n >= probeTries || time.Now().After(deadline) {
			if h == "" {
				h = "unknown process"
			}
			return nil, fmt.Errorf("%w (%s; lock on the memory folder %s)", ErrLocked, h, memoryDir)
		}
		time.Sleep(ownerPoll)
	}
	if err := in.lockFile(); err != nil {
		in.unlockFolder()
		return nil, err
	}
	return in, nil
}

// lockFile takes DaemonLock in the state folder, creating the folder, and
// writes the owner beside it. A probe holds it for an instant, so a held
// lock is tried a few times before the error wrapping ErrLocked.
func (in *Instance) lockFile() error {
	if err := Ensure(in.stateDir); err != nil {
		return err
	}
	for n := 1; ; n++ {
		fl, ok, err := tryFlock(in.stateDir, DaemonLock)
		if err != nil {
			return err
		}
		if ok {
			in.file = fl
			writeOwner(in.stateDir, DaemonLock, in.owner)
			return nil
		}
		if n >= probeTries {
			return lockedBy(in.stateDir, DaemonLock)
		}
		time.Sleep(ownerPoll)
	}
}

// FolderErr says why the memory folder itself is not locked (nil when it
// is): the instance then rests on DaemonLock alone, which a deleted state
// folder takes with it until Keep takes it again.
func (in *Instance) FolderErr() error { return in.folderErr }

// Keep makes sure DaemonLock is still held on the file the state folder
// holds. When that file is gone or is another one (the state folder was
// deleted or replaced), it recreates the folder, locks the new file, writes
// the owner again and reports renewed; when only the owner file is gone it
// writes it again. Call it every second or so.
//
// When the new file cannot be locked: with the memory folder locked the
// holder can only be a probe, and Keep returns no error (the next call
// tries again); without it, a second daemon started while the file was
// missing, and the error wraps ErrLocked: this process should stop.
func (in *Instance) Keep() (renewed bool, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	path := filepath.Join(in.stateDir, DaemonLock)
	held, herr := in.file.Stat()
	cur, cerr := os.Stat(path)
	if herr == nil && cerr == nil && os.SameFile(held, cur) {
		if _, err := os.Lstat(path + ".owner"); errors.Is(err, os.ErrNotExist) {
			err = writeOwner(in.stateDir, DaemonLock, in.owner)
			return false, err
		}
		return false, nil
	}
	old := in.file
	if err := in.lockFile(); err != nil {
		if errors.Is(err, ErrLocked) && in.folder != nil {
			return false, nil
		}
		return false, err
	}
	old.Unlock()
	return true, nil
}

// Unlock releases both locks. The files stay.
func (in *Instance) Unlock() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	err := in.file.Unlock()
	in.unlockFolder()
	return err
}

func (in *Instance) unlockFolder() {
	if in.folder != nil {
		in.folder.Unlock()
	}
}

// InstanceHeld reports whether a daemon holds the single-instance lock of
// memoryDir (state folder stateDir) now: the memory folder's lock, or
// DaemonLock where the folder cannot be locked or by a daemon that could
// not lock it. Like Held it probes without writing anything.
func InstanceHeld(stateDir, memoryDir string) bool {
	fl := flock.New(memoryDir, flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryLock()
	if err == nil && !ok {
		return true
	}
	if ok {
		fl.Unlock()
	}
	return Held(stateDir, DaemonLock)
}

// InstancePID returns the process id of the daemon that holds the
// single-instance lock of memoryDir, read from the text it wrote beside
// DaemonLock (Owner: "pid N, …"); 0 when none holds it or it cannot be
// read.
func InstancePID(stateDir, memoryDir string) int {
	if !InstanceHeld(stateDir, memoryDir) {
		return 0
	}
	var pid int
	if _, err := fmt.Sscanf(readOwner(stateDir, DaemonLock), "pid %d,", &pid); err != nil || pid <= 0 {
		return 0
	}
	return pid
}
