package index

// Stamp is what an lstat tells of one version of a file, without reading
// it: size, modification and change times, inode and mode (as the system
// gives them). A write, a rename over the file, a git checkout, all change
// it.
type Stamp struct {
	Size, Mtime, Ctime int64
	Ino                uint64
	Mode               uint32
}

// FileStamp is a file of the memory folder with its stamp.
type FileStamp struct {
	File string
	Stamp
}

func (k statKey) stamp() Stamp {
	return Stamp{Size: k.size, Mtime: k.mtime, Ctime: k.ctime, Ino: k.ino, Mode: k.mode}
}

// Stamps returns every file of a snapshot taken by Store.Snapshot — its
// memories and unreadable files — with the stamp of the version the Store
// read (taken before reading it, so a later change never shows as read).
// It returns false when the snapshot was made otherwise, or holds a file
// the Store never stat-ed (a symbolic link, a name memoryd refuses, a
// folder it could not list): then only a look at the folder can tell.
func (s Snapshot) Stamps() ([]FileStamp, bool) {
	if len(s.entries) != len(s.Memories)+len(s.Unreadable) {
		return nil, false
	}
	out := make([]FileStamp, len(s.entries))
	for i, e := range s.entries {
		if e.key == (statKey{}) {
			return nil, false
		}
		out[i] = FileStamp{e.rel, e.key.stamp()}
	}
	return out, true
}
