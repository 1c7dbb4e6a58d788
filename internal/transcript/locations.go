package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// store is one transcript store that exists.
type store struct {
	kind string // "opencode", "opencode-legacy", "claude", "codex"
	path string // the database, or the folder
}

// stores lists the transcript stores in loc that exist now: the OpenCode
// databases, else the legacy OpenCode storage (OpenCode moves it into the
// database on first start, leaving the old files behind), Claude Code's
// projects folder and Codex's sessions folder. A few stats and a glob: the
// one place that knows each agent's layout.
func (loc Locations) stores() []store {
	var out []store
	dbs := loc.OpenCodeDatabases()
	for _, p := range dbs {
		out = append(out, store{"opencode", p})
	}
	if len(dbs) == 0 && loc.OpenCodeData != "" {
		if dir := filepath.Join(loc.OpenCodeData, "storage"); isDir(filepath.Join(dir, "session")) {
			out = append(out, store{"opencode-legacy", dir})
		}
	}
	if loc.ClaudeDir != "" {
		if dir := filepath.Join(loc.ClaudeDir, "projects"); isDir(dir) {
			out = append(out, store{"claude", dir})
		}
	}
	if loc.CodexHome != "" {
		if dir := filepath.Join(loc.CodexHome, "sessions"); isDir(dir) {
			out = append(out, store{"codex", dir})
		}
	}
	return out
}

// Fingerprint names the stores that exist in loc now; it changes when one
// appears or goes, and is cheap enough to ask every few seconds.
func (loc Locations) Fingerprint() string {
	var b strings.Builder
	for _, s := range loc.stores() {
		b.WriteString(s.kind + "=" + s.path + "\x00")
	}
	return b.String()
}

// Discover returns a Source for each transcript store in loc that exists now (see stores). A store
// that exists but cannot be opened is left out and named in the returned error; the sources that
// did open are returned with it. Call Discover again when Fingerprint changes to pick up stores
// created since; Close the old sources first.
func Discover(loc Locations, opts Options) ([]Source, error) {
	var sources []Source
	var errs []error
	for _, st := range loc.stores() {
		switch st.kind {
		case "opencode":
			s, err := OpenOpenCode(st.path, opts)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			sources = append(sources, s)
		case "opencode-legacy":
			sources = append(sources, NewOpenCodeLegacy(st.path, opts))
		case "claude":
			sources = append(sources, NewClaude(st.path, opts))
		case "codex":
			sources = append(sources, NewCodex(st.path, opts))
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
