package index

import "syscall"

func keyFromStat(st *syscall.Stat_t) statKey {
	return statKey{size: st.Size, mtime: st.Mtimespec.Nano(), ctime: st.Ctimespec.Nano(),
		ino: uint64(st.Ino), dev: uint64(st.Dev), mode: uint32(st.Mode)}
}
