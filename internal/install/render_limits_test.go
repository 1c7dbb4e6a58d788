package install

import (
	"strconv"
	"testing"
)

// TestLaunchdPlistRaisesOpenFiles: kqueue holds a file open for every
// watched entry, and launchd would start the agent with 256 allowed.
func TestLaunchdPlistRaisesOpenFiles(t *testing.T) {
	d := parsePlist(t, RenderLaunchdPlist(Spec{Binary: "/b", ConfigPath: "/c", Path: "/usr/bin", LogDir: "/l"})).Dict
	for _, key := range []string{"SoftResourceLimits", "HardResourceLimits"} {
		n := d[key].Dict["NumberOfFiles"]
		if got, err := strconv.Atoi(n.Text); n.Kind != "integer" || err != nil || got != LaunchdOpenFiles {
			t.Errorf("%s.NumberOfFiles = %+v, want integer %d", key, n, LaunchdOpenFiles)
		}
	}
	if LaunchdOpenFiles < 4096 || LaunchdOpenFiles > 10240 {
		t.Errorf("LaunchdOpenFiles = %d: below what a large store needs, or above macOS's per-process ceiling", LaunchdOpenFiles)
	}
}
