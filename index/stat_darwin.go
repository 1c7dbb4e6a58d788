package index

import (
	"io/fs"
	"syscall"
)

// sysStat adds the inode, device and change time to k.
func sysStat(k *statKey, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.ino, k.dev, k.ctime = uint64(st.Ino), uint64(st.Dev), st.Ctimespec.Nano()
	}
}
