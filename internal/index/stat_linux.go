package index

import "syscall"

func keyFromStat(st *syscall.Stat_t) statKey {
	return statKey{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		ino: uint64(st.Ino), dev: uint64(st.Dev), mode: st.Mode}
}
