package index

import (
	"testing"

	"github.com/memoryd/memoryd/internal/gittest"
)

func TestMain(m *testing.M) { gittest.Main(m) }
