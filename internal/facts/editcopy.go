package facts

import (
	"os"
	"path/filepath"

	"github.com/memoryd/memoryd/internal/state"
)

// NewCopy writes data, the bytes of the fact file file, to a new copy for
// a person's edit (Edit.Copy) and returns its path. The copy lives in the
// state folder stateDir (private, outside the watched memory folder),
// which is created when nothing ran there before; nothing is left behind
// on an error.
func NewCopy(stateDir, file string, data []byte) (string, error) {
	if err := state.Ensure(stateDir); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(stateDir, "edit-*-"+filepath.Base(file))
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}
