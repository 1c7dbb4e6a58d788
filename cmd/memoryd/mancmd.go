package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

func init() {
	register(&command{name: "man", summary: "Print the manual page (roff), made from the commands' definitions: memoryd man | man -l -",
		run: func(_ context.Context, e env, _ *flag.FlagSet, _ []string) error {
			writeManPage(e.stdout, version(), time.Now())
			return nil
		}})
}

// writeManPage writes memoryd(1) in roff's man macros: every command that
// help lists, with its synopsis, summary and flags, read from the same
// definitions as --help, so the page cannot say other than the program.
// Releases write it into their archives (.goreleaser.yaml).
func writeManPage(w io.Writer, version string, now time.Time) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p(".TH MEMORYD 1 %q %s \"User Commands\"\n", now.UTC().Format("2006-01-02"), roffQuote("memoryd "+version))
	p(".SH NAME\nmemoryd \\- keeps an AI coding agent's long-term memory folder healthy\n")
	p(".SH SYNOPSIS\n.B memoryd\n.I command\n[\\fIarguments\\fR] [\\fIflags\\fR]\n")
	p(".SH DESCRIPTION\n%s\n", roffText("memoryd watches a folder of markdown memory files, one fact per file, in the user's notes git "+
		"repository; rebuilds the indexes; commits after a debounce; compacts the store and extracts facts from "+
		"the agents' sessions with a model; and gives the memory back to OpenCode, Claude Code and Codex "+
		"(context, search, recall, MCP). The files are the truth: every change is a git commit that undo can take back."))
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	p(".SH COMMANDS\n")
	for _, n := range names {
		c := commands[n]
		p(".SS %s\n", roffText(strings.TrimSpace("memoryd "+c.name+" "+c.args)))
		p("%s\n", roffText(c.summary))
		fs := newFlagSet(c)
		fs.VisitAll(func(f *flag.Flag) {
			name, usage := describeFlag(f)
			p(".TP\n.B %s\n%s\n", roffText(name), roffText(usage))
		})
	}
	p(".SH FILES\n%s\n", roffText("$XDG_CONFIG_HOME/memoryd/config.yaml (or $MEMORYD_CONFIG): the configuration; "+
		"$XDG_STATE_HOME/memoryd: the state folder (status, logs, the search database, usage counts)."))
	p(".SH EXIT STATUS\n0 on success, 1 on a failure (or a finding, for doctor and check), 2 on a bad command line.\n")
	p(".SH SEE ALSO\n%s\n", roffText("git(1); memoryd help COMMAND; the README of the memoryd repository."))
}

// roffText escapes s for a roff text line: backslashes, and a leading dot
// or quote that would make the line a request.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return strings.ReplaceAll(s, "\n", " ")
}

// roffQuote is s as one quoted argument of a request.
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `""`) + `"`
}
