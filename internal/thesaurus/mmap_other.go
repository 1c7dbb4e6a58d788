//go:build !unix

package thesaurus

import "os"

// mapFile reads the file at path whole, where memory maps are not to be
// had.
func mapFile(path string) (b []byte, unmap func() error, err error) {
	b, err = os.ReadFile(path)
	return b, func() error { return nil }, err
}
