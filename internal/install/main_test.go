package install

import (
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
)

// TestMain reports, at the end, the tests skipped because a tool they need
// is not on PATH (and MEMORYD_REQUIRE_TOOLS=1 makes those failures).
func TestMain(m *testing.M) { needtool.Main(m) }
