package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"time"
)

// TestManPageListsEveryCommandAndFlag: the manual page is made from the
// commands' definitions, so every command help lists and each of its
// flags is in it, and no text line can be taken for a roff request.
func TestManPageListsEveryCommandAndFlag(t *testing.T) {
	var b bytes.Buffer
	writeManPage(&b, "v1.2.3", time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	page := b.String()
	if !strings.HasPrefix(page, `.TH MEMORYD 1 "2026-11-26" "memoryd v1.2.3"`) {
		t.Errorf("title line: %q", strings.SplitN(page, "\n", 2)[0])
	}
	listed := 0
	for name, c := range commands {
		if c.hidden {
			if strings.Contains(page, ".SS memoryd "+name+"\n") || strings.Contains(page, ".SS memoryd "+name+" ") {
				t.Errorf("hidden command %s is in the page", name)
			}
			continue
		}
		listed++
		at := strings.Index(page, ".SS "+roffText(strings.TrimSpace("memoryd "+c.name+" "+c.args))+"\n")
		if at < 0 {
			t.Errorf("command %s is not in the page", name)
			continue
		}
		section := page[at:]
		if next := strings.Index(section[4:], ".SS "); next >= 0 {
			section = section[:next+4]
		}
		newFlagSet(c).VisitAll(func(f *flag.Flag) {
			flagName, _ := describeFlag(f)
			if !strings.Contains(section, ".B "+roffText(flagName)+"\n") {
				t.Errorf("memoryd %s: flag %s is not in its section", name, flagName)
			}
		})
	}
	if listed < 20 {
		t.Errorf("only %d commands listed", listed)
	}
	requests := map[string]bool{".TH": true, ".SH": true, ".SS": true, ".TP": true, ".B": true, ".I": true}
	for i, line := range strings.Split(strings.TrimSuffix(page, "\n"), "\n") {
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			if !requests[strings.Fields(line)[0]] {
				t.Errorf("line %d is an unknown request: %q", i+1, line)
			}
		}
	}
}

// TestRoffText: text that would be a request, a backslash and hyphens are
// escaped.
func TestRoffText(t *testing.T) {
	for in, want := range map[string]string{
		".hidden":      `\&.hidden`,
		"'quoted":      `\&'quoted`,
		`a\b`:          `a\eb`,
		"--memory-dir": `\-\-memory\-dir`,
		"two\nlines":   "two lines",
	} {
		if got := roffText(in); got != want {
			t.Errorf("roffText(%q) = %q, want %q", in, got, want)
		}
	}
}
