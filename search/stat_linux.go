package search

import (
	"io/fs"
	"syscall"
)

func stampOf(fi fs.FileInfo) stamp {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return stamp{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino, mode: st.Mode}
	}
	return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
}
