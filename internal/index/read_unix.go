//go:build linux || darwin

package index

import (
	"io/fs"
	"os"
	"syscall"
)

func keyOf(fi fs.FileInfo) statKey {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return keyFromStat(st)
	}
	return statKey{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
}

// readFile reads the regular file name, at most limit bytes, with plain
// system calls: open (never through a symbolic link, never waiting on a
// FIFO), fstat, read, close — half of what os.ReadFile costs, which matters
// for a scan of thousands of small files. It returns the key of the version
// it read; errTooBig (with the key) without reading a file over limit.
func readFile(name string, limit int64) ([]byte, statKey, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, statKey{}, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, statKey{}, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	key := keyFromStat(&st)
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, statKey{}, errNotRegular
	}
	if key.size > limit {
		return nil, key, errTooBig
	}
	// Read what fstat counted: bytes appended later come with a new
	// mtime, so the next scan reads the file again.
	data := make([]byte, key.size)
	n := 0
	for n < len(data) {
		m, err := syscall.Read(fd, data[n:])
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return nil, statKey{}, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	return data[:n], key, nil
}

// readHead reads at most n bytes from the start of the regular file name,
// never through a symbolic link and never waiting on a FIFO.
func readHead(name string, n int) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return headOf(f, n)
}
