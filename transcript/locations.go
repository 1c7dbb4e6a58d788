package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
)

// Locations says where each agent keeps its transcripts. Empty fields are not searched.
type Locations struct {
	// OpenCodeData is OpenCode's data folder (…/opencode): it holds opencode.db,
	// opencode-<channel>.db and the legacy storage/ folder.
	OpenCodeData string
	// OpenCodeDB, when set, is the one OpenCode database to read (OPENCODE_DB, or memoryd's
	// extract.opencode_db); then no other opencode*.db is looked for.
	OpenCodeDB string
	// ClaudeDir is Claude Code's config folder (CLAUDE_CONFIG_DIR, else ~/.claude).
	ClaudeDir string
	// CodexHome is Codex's home folder (CODEX_HOME, else ~/.codex).
	CodexHome string
}

// DefaultLocations resolves the folders the agents use by default for a user whose home is home,
// reading the environment only through getenv: XDG_DATA_HOME and OPENCODE_DB (OpenCode; a
// relative OPENCODE_DB is inside the data folder, as OpenCode reads it), CLAUDE_CONFIG_DIR and
// CODEX_HOME. OpenCode uses ~/.local/share on macOS too.
func DefaultLocations(home string, getenv func(string) string) Locations {
	data := getenv("XDG_DATA_HOME")
	if data == "" || !filepath.IsAbs(data) {
		data = filepath.Join(home, ".local", "share")
	}
	loc := Locations{
		OpenCodeData: filepath.Join(data, "opencode"),
		ClaudeDir:    filepath.Join(home, ".claude"),
		CodexHome:    filepath.Join(home, ".codex"),
	}
	if db := getenv("OPENCODE_DB"); db != "" && db != ":memory:" {
		if !filepath.IsAbs(db) {
			db = filepath.Join(loc.OpenCodeData, db)
		}
		loc.OpenCodeDB = db
	}
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		loc.ClaudeDir = d
	}
	if d := getenv("CODEX_HOME"); d != "" {
		loc.CodexHome = d
	}
	return loc
}

// OpenCodeDatabases lists the OpenCode databases in loc that exist: loc.OpenCodeDB alone when
// set, else opencode.db, then the opencode-*.db of other release channels, sorted.
func (loc Locations) OpenCodeDatabases() []string {
	var found []string
	if loc.OpenCodeDB != "" {
		if isFile(loc.OpenCodeDB) {
			found = append(found, loc.OpenCodeDB)
		}
		return found
	}
	if loc.OpenCodeData == "" {
		return nil
	}
	if p := filepath.Join(loc.OpenCodeData, "opencode.db"); isFile(p) {
		found = append(found, p)
	}
	more, _ := filepath.Glob(filepath.Join(loc.OpenCodeData, "opencode-*.db"))
	slices.Sort(more)
	for _, p := range more {
		if isFile(p) {
			found = append(found, p)
		}
	}
	return found
}

// Discover returns a Source for each transcript store in loc that exists now. A store that exists
// but cannot be opened is left out and named in the returned error; the sources that did open are
// returned with it. The legacy OpenCode storage is used only when no OpenCode database exists:
// OpenCode moves it into the database on first start, leaving the old files behind. Call Discover
// again after a rescan to pick up stores created since; Close the old sources first.
func Discover(loc Locations, opts Options) ([]Source, error) {
	var sources []Source
	var errs []error
	dbs := loc.OpenCodeDatabases()
	for _, p := range dbs {
		s, err := OpenOpenCode(p, opts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sources = append(sources, s)
	}
	if len(dbs) == 0 && loc.OpenCodeData != "" {
		if dir := filepath.Join(loc.OpenCodeData, "storage"); isDir(filepath.Join(dir, "session")) {
			sources = append(sources, NewOpenCodeLegacy(dir, opts))
		}
	}
	if loc.ClaudeDir != "" {
		if dir := filepath.Join(loc.ClaudeDir, "projects"); isDir(dir) {
			sources = append(sources, NewClaude(dir, opts))
		}
	}
	if loc.CodexHome != "" {
		if dir := filepath.Join(loc.CodexHome, "sessions"); isDir(dir) {
			sources = append(sources, NewCodex(dir, opts))
		}
	}
	return sources, errors.Join(errs...)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
