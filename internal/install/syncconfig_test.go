package install

import (
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/config"
)

func TestWithSyncEnabled(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"memory_dir: /m\n", "memory_dir: /m\nsync:\n  enabled: true\n"},
		{"memory_dir: /m", "memory_dir: /m\nsync:\n  enabled: true\n"},
		{"memory_dir: /m\nsync:\n  remote: up # mine\n", "memory_dir: /m\nsync:\n  enabled: true\n  remote: up # mine\n"},
		{"sync:\n    enabled: false # was off\nmemory_dir: /m\n", "sync:\n    enabled: true # was off\nmemory_dir: /m\n"},
		{"sync:\n  enabled: true\n", "sync:\n  enabled: true\n"},
		{"sync:\nmemory_dir: /m\n", "sync:\n  enabled: true\nmemory_dir: /m\n"},
	} {
		got, err := withSyncEnabled([]byte(c.in), true)
		if err != nil || string(got) != c.want {
			t.Errorf("withSyncEnabled(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		cfg := config.Default()
		if err := config.Parse(strings.NewReader(string(got)), "config.yaml", &cfg); err != nil || !cfg.Sync.Enabled {
			t.Errorf("%q does not parse with sync on: %v", got, err)
		}
	}
	if _, err := withSyncEnabled([]byte("sync: {enabled: false}\n"), true); err == nil {
		t.Error("a flow mapping was edited")
	}
}
