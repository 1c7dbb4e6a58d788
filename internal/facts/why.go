package facts

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/index"
)

// SourceView is where a fact came from as `memoryd why --json` gives it.
type SourceView struct {
	Agent    string `json:"agent"`
	Session  string `json:"session,omitempty"`
	Messages string `json:"messages,omitempty"`
	At       string `json:"at,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Host     string `json:"host,omitempty"`
}

// CommitView is a commit that touched a fact, as `memoryd why --json`
// gives it.
type CommitView struct {
	Hash    string    `json:"hash"`
	At      time.Time `json:"at"`
	Subject string    `json:"subject"`
}

// SourceViews is each of sources as its JSON gives it; never nil.
func SourceViews(sources []index.Source) []SourceView {
	out := []SourceView{}
	for _, s := range sources {
		out = append(out, SourceView(s))
	}
	return out
}

// PrintSources writes where a fact came from, a line a source, as `memoryd
// why` shows it.
func PrintSources(w io.Writer, sources []index.Source) {
	if len(sources) == 0 {
		fmt.Fprintln(w, "sources: none recorded (written by hand, or before memoryd recorded sources)")
		return
	}
	fmt.Fprintln(w, "sources:")
	for _, s := range sources {
		parts := []string{s.Agent}
		for _, kv := range [][2]string{{"session", s.Session}, {"messages", s.Messages}, {"at", s.At}, {"cwd", s.Cwd}, {"host", s.Host}} {
			if kv[1] != "" {
				parts = append(parts, kv[0]+" "+kv[1])
			}
		}
		fmt.Fprintf(w, "  - %s\n", strings.Join(parts, ", "))
	}
}
