package facts

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

func TestSources(t *testing.T) {
	src := []index.Source{{Agent: "codex", Session: "s1", Cwd: "/p"}, {Agent: "cli"}}
	var b bytes.Buffer
	PrintSources(&b, src)
	if b.String() != "sources:\n  - codex, session s1, cwd /p\n  - cli\n" {
		t.Errorf("printed:\n%s", b.String())
	}
	b.Reset()
	PrintSources(&b, nil)
	if b.String() != "sources: none recorded (written by hand, or before memoryd recorded sources)\n" {
		t.Errorf("none: %q", b.String())
	}
	data, _ := json.Marshal(SourceViews(nil))
	if string(data) != "[]" {
		t.Errorf("no sources: %s", data)
	}
	data, _ = json.Marshal(SourceViews(src[:1]))
	if string(data) != `[{"agent":"codex","session":"s1","cwd":"/p"}]` {
		t.Errorf("json %s", data)
	}
}
