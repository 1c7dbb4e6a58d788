package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/index"
)

type addOptions struct {
	*app
	fact       facts.Fact
	replace    bool
	noProject  bool
	cites      string
	supersedes string
	args       []string
}

func newCmdAdd(a *app) *cobra.Command {
	o := &addOptions{app: a}
	cmd := &cobra.Command{
		Use:   "add [--type=T] [--name=N] [--description=D] [--project=SLUG] [--global] [--replace|--supersedes=OLD] [--cites=PATH,...] TEXT|-",
		Short: "Add a fact (the body from the argument, or from stdin with -) and commit it.",
		Args:  exactArgs(1, "give the body as an argument (the fact's text, in quotes), or - to read it from stdin"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			return runAdd(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	enumFlag(cmd, &o.fact.Type, "type", "", index.Types, "the fact's `TYPE`: user, feedback, project or reference (default user, a fact about you; project with --project)")
	fl.StringVar(&o.fact.Name, "name", "", "kebab-case name; the file is TYPE-NAME.md (default: the text's first words, numbered when taken)")
	fl.StringVar(&o.fact.Description, "description", "", "the one line the index shows (default: the text's first line)")
	fl.BoolVar(&o.replace, "replace", false, "replace an existing fact of the same type and name")
	fl.StringVar(&o.fact.Project, "project", "", "the project `SLUG` the fact holds in (default for type project: the current directory's project)")
	cmd.RegisterFlagCompletionFunc("project", completeProjects(a))
	fl.BoolVar(&o.noProject, "global", false, "a fact for every project, even of type project")
	fl.StringVar(&o.cites, "cites", "", "the files the fact rests on, comma-separated `PATH[#SYMBOL],...` (from the current directory, inside the fact's project); memoryd records their versions and marks the fact when they change")
	fl.StringVar(&o.supersedes, "supersedes", "", "the `OLD` fact (NAME or FILE) this one replaces: OLD stays in the folder, marked superseded, out of every index and search")
	cmd.RegisterFlagCompletionFunc("supersedes", func(_ *cobra.Command, _ []string, s string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return factNames(a, s), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func runAdd(ctx context.Context, o *addOptions) error {
	e := o.env
	body, err := bodyArg(e, o.args)
	if err != nil {
		return err
	}
	f, w, err := factWriter(e, o.global)
	if err != nil {
		return err
	}
	fact := o.factOf(body)
	var d facts.Done
	switch old := o.supersedes; {
	case old != "" && o.replace:
		return usageError{"give --replace or --supersedes, not both: --replace overwrites a fact of the same name, --supersedes keeps the old one beside the new"}
	case old != "":
		d, err = w.Supersede(ctx, fact, old)
	default:
		d, err = w.Save(ctx, fact, o.replace)
	}
	if err != nil {
		return factError(err)
	}
	printDone(e.stdout, f, d)
	if d.Superseded != "" {
		fmt.Fprintf(e.stdout, "%s is superseded: kept in the folder, out of the indexes and search (memoryd undo brings it back)\n", d.Superseded)
	}
	return nil
}

// factOf is the fact the flags describe, with body, in the project the
// one rule says (facts.Fact.Scoped).
func (o *addOptions) factOf(body string) facts.Fact {
	fact := withDefaults(o.fact, body)
	if o.noProject {
		fact.Project = facts.Global
	}
	for _, p := range strings.Split(o.cites, ",") {
		if p = strings.TrimSpace(p); p != "" {
			fact.Cites = append(fact.Cites, p)
		}
	}
	return fact.Scoped(scopeOptions{}.scope())
}

// bodyArg is the body given as the one argument (newCmdAdd checks there
// is one), or read from stdin for "-".
func bodyArg(e env, args []string) (string, error) {
	if args[0] != "-" {
		return args[0], nil
	}
	b, err := io.ReadAll(io.LimitReader(e.stdin, facts.MaxBody+1))
	return string(b), err
}

// withDefaults is flags' fact with body and what the flags left out taken
// from the text (facts.FromText): so memoryd add "I use fish as my shell"
// needs nothing else.
func withDefaults(flags facts.Fact, body string) facts.Fact {
	fact := facts.FromText(body)
	if flags.Type != "" {
		fact.Type = flags.Type
	} else if flags.Project != "" {
		fact.Type = "project"
	}
	if flags.Name != "" {
		fact.Name, fact.Free = flags.Name, false
	}
	if flags.Description != "" {
		fact.Description = flags.Description
	}
	fact.Project, fact.Cites = flags.Project, flags.Cites
	return fact
}
