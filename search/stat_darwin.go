package search

import (
	"io/fs"
	"syscall"
)

func stampOf(fi fs.FileInfo) stamp {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return stamp{size: st.Size, mtime: st.Mtimespec.Nano(), ctime: st.Ctimespec.Nano(),
			ino: st.Ino, mode: uint32(st.Mode)}
	}
	return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
}
