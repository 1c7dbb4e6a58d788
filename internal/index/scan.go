package index

// Scan reads the memory folder dir once and returns what it holds, for
// code that only reads: the commands that list, show and search, the MCP
// server, doctor, the search index. It writes nothing. Code that writes
// the folder's indexes gets its store from the write transaction
// (txn.Folder.NewStore), the only production caller of NewStore, so that
// every writer uses the one configured budget.
func Scan(dir string) (Snapshot, error) {
	st := NewStore(dir)
	if err := st.Scan(); err != nil {
		return Snapshot{}, err
	}
	return st.Snapshot(), nil
}
