package extractor

import (
	"fmt"
	"maps"

	"github.com/memoryd/memoryd/internal/state"
	"github.com/memoryd/memoryd/internal/transcript"
)

// Key names a session in the watermarks file and in the daemon:
// "<source>/<session id>".
func Key(source, id string) string { return source + "/" + id }

// watermarks is the content of state.WatermarksFile, keyed by Key.
type watermarks map[string]transcript.Watermark

// loadMarks reads the watermarks; a missing file is an empty set.
func loadMarks(stateDir string) (watermarks, error) {
	m := watermarks{}
	err := state.ReadJSON(stateDir, state.WatermarksFile, &m)
	if err != nil && !state.IsNotExist(err) {
		return nil, fmt.Errorf("read watermarks: %w", err)
	}
	if m == nil {
		m = watermarks{}
	}
	return m, nil
}

// editMarks reads the watermarks, lets edit change them and writes them back
// when it did. Callers serialize edits (Extractor.editMarks: its mutex, and
// the watermarks' lock across processes).
func editMarks(stateDir string, edit func(m watermarks)) error {
	m, err := loadMarks(stateDir)
	if err != nil {
		return err
	}
	before := maps.Clone(m)
	edit(m)
	if maps.Equal(before, m) {
		return nil
	}
	if err := state.WriteJSON(stateDir, state.WatermarksFile, m); err != nil {
		return fmt.Errorf("write watermarks: %w", err)
	}
	return nil
}
