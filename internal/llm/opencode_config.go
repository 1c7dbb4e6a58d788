package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// OpenCodeConfigDigest is a digest of what decides which models OpenCode
// offers and which one it picks for memoryd: its global config files, the
// file and text of OPENCODE_CONFIG and OPENCODE_CONFIG_CONTENT, and its
// credentials (auth.json), as env (nil: this process's) locates them. Any
// change to them changes the digest, so a cached answer about OpenCode's
// models is known to be stale; the files' bytes are hashed, never kept.
// A project's own opencode.json is not included: memoryd asks OpenCode
// from its own directory.
func OpenCodeConfigDigest(env []string) string {
	if env == nil {
		env = os.Environ()
	}
	get := func(key string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == key {
				v = val
			}
		}
		return v
	}
	home := get("HOME")
	base := func(xdgKey, fallback string) string {
		if d := get(xdgKey); filepath.IsAbs(d) {
			return d
		}
		return filepath.Join(home, fallback)
	}
	configDir := filepath.Join(base("XDG_CONFIG_HOME", ".config"), "opencode")
	files := []string{
		filepath.Join(configDir, "config.json"),
		filepath.Join(configDir, "opencode.json"),
		filepath.Join(configDir, "opencode.jsonc"),
		filepath.Join(base("XDG_DATA_HOME", filepath.Join(".local", "share")), "opencode", "auth.json"),
	}
	if p := get("OPENCODE_CONFIG"); p != "" {
		files = append(files, p)
	}
	h := sha256.New()
	for _, p := range files {
		data, err := os.ReadFile(p)
		h.Write([]byte(p + "\x00"))
		if err != nil {
			h.Write([]byte("absent\x00"))
			continue
		}
		sum := sha256.Sum256(data)
		h.Write(sum[:])
	}
	h.Write([]byte("content\x00" + get("OPENCODE_CONFIG_CONTENT")))
	return hex.EncodeToString(h.Sum(nil))[:16]
}
