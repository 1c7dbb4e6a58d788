package buildinfo

import (
	"runtime/debug"
	"testing"
)

// TestModuleVersion: a binary built by `go install …@v1.2.3` says v1.2.3;
// one built from a checkout has no module version (it says
// dev-<commit>), though Go stamps it with a pseudo-version of the commit;
// one built at a clean tag keeps the tag.
func TestModuleVersion(t *testing.T) {
	checkout := func(v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: v},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "ecafa02adb4ae6efe70248def8f00c4a86a3a574"}}}
	}
	for _, c := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, ""},
		{nil, ""},
		{checkout("v0.0.0-20261128010632-ecafa02adb4a"), ""},
		{checkout("v0.0.0-20261128010632-ecafa02adb4a+dirty"), ""},
		{checkout("v0.3.1-0.20261128010632-ecafa02adb4a"), ""},
		{checkout("v1.2.3"), "v1.2.3"},
		{checkout("v1.2.3+dirty"), ""},
	} {
		if got := moduleVersion(c.info); got != c.want {
			t.Errorf("moduleVersion(%+v) = %q, want %q", c.info, got, c.want)
		}
	}
}
