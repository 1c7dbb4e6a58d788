// Package state keeps memoryd's per-memory-folder state outside the notes
// repository: the lock files, compaction state, extraction watermarks and
// status.json. Files are 0600 and folders 0700.
package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memoryd/memoryd/internal/atomicfile"
)

// Dir returns the state folder for memoryDir under stateHome
// (stateHome/memoryd/<key>), where key is the first 16 hex digits of the
// sha256 of the folder's real path, so two spellings of one folder share state.
// The memory folder must exist.
func Dir(stateHome, memoryDir string) (string, error) {
	real, err := RealPath(memoryDir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(real))
	return filepath.Join(stateHome, "memoryd", hex.EncodeToString(sum[:])[:16]), nil
}

// RealPath returns the absolute path of dir with symbolic links resolved.
func RealPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("memory folder: %w", err)
	}
	return real, nil
}

// Ensure creates dir with mode 0700 if it is missing.
func Ensure(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state folder: %w", err)
	}
	return nil
}

// ReadJSON decodes dir/name into v. A missing file leaves v untouched and
// returns an error matching fs.ErrNotExist.
func ReadJSON(dir, name string, v any) error {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("state %s: %w", name, err)
	}
	return nil
}

// WriteJSON writes v to dir/name atomically with mode 0600.
func WriteJSON(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := Ensure(dir); err != nil {
		return err
	}
	_, err = atomicfile.Write(dir, name, data, 0o600)
	return err
}

// IsNotExist reports whether err means a state file is absent.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
