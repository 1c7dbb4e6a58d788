package thesaurus

import (
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
)

func TestMain(m *testing.M) { needtool.Main(m) }
