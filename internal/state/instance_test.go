package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flock locks belong to an open file description, so a second open in this
// process stands for a second process.

func instanceDirs(t *testing.T) (stateDir, mem string) {
	mem = filepath.Join(t.TempDir(), "memory")
	if err := os.Mkdir(mem, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(t.TempDir(), "state", "0123456789abcdef"), mem
}

func TestInstanceSecondRefusedNamingFirst(t *testing.T) {
	sd, mem := instanceDirs(t)
	in, err := LockInstance(sd, mem, "pid 4242, memoryd run")
	if err != nil {
		t.Fatal(err)
	}
	if in.FolderErr() != nil {
		t.Fatalf("the memory folder was not locked: %v", in.FolderErr())
	}
	_, err = LockInstance(sd, mem, "pid 99, memoryd run")
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid 4242") {
		t.Fatalf("second instance: %v", err)
	}
	if !InstanceHeld(sd, mem) {
		t.Fatal("InstanceHeld: false while held")
	}
	in.Unlock()
	if InstanceHeld(sd, mem) {
		t.Fatal("InstanceHeld: true after Unlock")
	}
	again, err := LockInstance(sd, mem, "pid 99, memoryd run")
	if err != nil {
		t.Fatalf("after Unlock: %v", err)
	}
	again.Unlock()
	if _, err := os.Stat(filepath.Join(sd, DaemonLock)); err != nil {
		t.Fatal("lock file removed")
	}
}

// The state folder deleted under the holder: the memory folder's lock still
// keeps a second instance out and probes still see it, and Keep recreates
// the folder and takes DaemonLock on the new file, which names the holder.
func TestInstanceSurvivesDeletedStateFolder(t *testing.T) {
	sd, mem := instanceDirs(t)
	in, err := LockInstance(sd, mem, "pid 4242, memoryd run")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Unlock()
	if renewed, err := in.Keep(); renewed || err != nil {
		t.Fatalf("Keep with nothing deleted: %v %v", renewed, err)
	}
	if err := os.RemoveAll(sd); err != nil {
		t.Fatal(err)
	}
	if !InstanceHeld(sd, mem) {
		t.Fatal("InstanceHeld: false after the state folder was deleted")
	}
	if _, err := LockInstance(sd, mem, "pid 99, memoryd run"); !errors.Is(err, ErrLocked) {
		t.Fatalf("second instance after the deletion: %v", err)
	}
	renewed, err := in.Keep()
	if !renewed || err != nil {
		t.Fatalf("Keep after the deletion: %v %v", renewed, err)
	}
	if !Held(sd, DaemonLock) {
		t.Fatal("the new lock file is not held")
	}
	_, err = LockInstance(sd, mem, "pid 99, memoryd run")
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid 4242") {
		t.Fatalf("second instance after Keep: %v", err)
	}
	if fi, err := os.Stat(sd); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("recreated state folder: %v %v", fi, err)
	}

	// Only the owner's text gone: written again, the lock kept.
	os.Remove(filepath.Join(sd, DaemonLock+".owner"))
	if renewed, err := in.Keep(); renewed || err != nil {
		t.Fatalf("Keep after the owner file went: %v %v", renewed, err)
	}
	if got := readOwner(sd, DaemonLock); got != "pid 4242, memoryd run" {
		t.Fatalf("owner %q", got)
	}
}

// Without the memory folder's lock (a folder over NFS), a daemon that took
// the new lock file while the state folder was missing wins: Keep says so
// with ErrLocked, and the first stops.
func TestInstanceKeepLosesToNewHolderWithoutFolderLock(t *testing.T) {
	sd, mem := instanceDirs(t)
	in, err := LockInstance(sd, mem, "pid 4242, memoryd run")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Unlock()
	in.unlockFolder()
	in.folder, in.folderErr = nil, errors.New("test: no folder lock")
	os.RemoveAll(sd)
	other, err := TryLock(sd, DaemonLock, "pid 99, memoryd run")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Unlock()
	if _, err := in.Keep(); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid 99") {
		t.Fatalf("Keep: %v, want ErrLocked naming pid 99", err)
	}
}

// A probe writes nothing and creates no state folder.
func TestHeldProbesWithoutWriting(t *testing.T) {
	sd, mem := instanceDirs(t)
	if Held(sd, DaemonLock) || InstanceHeld(sd, mem) {
		t.Fatal("held with no holder")
	}
	if _, err := os.Stat(sd); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a probe created the state folder: %v", err)
	}
	Ensure(sd)
	Held(sd, DaemonLock)
	if _, err := os.Stat(filepath.Join(sd, DaemonLock+".owner")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a probe wrote an owner: %v", err)
	}
}
