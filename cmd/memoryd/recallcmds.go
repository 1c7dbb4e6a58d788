package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/cite"
	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/facts"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/usage"
)

type searchOptions struct {
	*app
	scopeOptions
	words       []string
	n           int
	explain     bool
	allVersions bool
}

func newCmdSearch(a *app) *cobra.Command {
	o := &searchOptions{app: a}
	cmd := &cobra.Command{
		Use:   "search [--project=SLUG] [--all] [--type=T] [--all-versions] [-n=N] [--json] [--explain] WORDS...",
		Short: "Search the facts: name and description weigh most; the current project's facts first.",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.words = args
			return runSearch(cmd.Context(), o)
		},
	}
	scopeFlags(cmd, a, &o.scopeOptions)
	cmd.Flags().IntVarP(&o.n, "limit", "n", search.DefaultLimit, "at most `N` results")
	cmd.Flags().BoolVar(&o.explain, "explain", false, "show why each fact ranked where it did: the words matched, how, where, and their scores")
	cmd.Flags().BoolVar(&o.allVersions, "all-versions", false, "superseded facts too (metadata.superseded_by), each marked with the fact that replaced it")
	return cmd
}

type listOptions struct {
	*app
	scopeOptions
	unused string
}

func newCmdList(a *app) *cobra.Command {
	o := &listOptions{app: a}
	cmd := &cobra.Command{
		Use:   "list [--project=SLUG] [--all] [--type=T] [--unused=AGE] [--json]",
		Short: "List the facts: the global ones and the current project's (--all: every project's).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runList(cmd.Context(), o) },
	}
	scopeFlags(cmd, a, &o.scopeOptions)
	cmd.Flags().StringVar(&o.unused, "unused", "", "only the facts no agent used for `AGE` (such as 60d or 36h); a fact never used counts from its metadata.updated date")
	return cmd
}

// scopeOptions are the flags that say which facts a command looks at.
type scopeOptions struct {
	project string
	all     bool
	typ     string
	json    bool
}

func scopeFlags(cmd *cobra.Command, a *app, o *scopeOptions) {
	cmd.Flags().StringVar(&o.project, "project", "", "the project `SLUG` (default: the current directory's project)")
	cmd.RegisterFlagCompletionFunc("project", completeProjects(a))
	cmd.Flags().BoolVar(&o.all, "all", false, "every project's facts too")
	enumFlag(cmd, &o.typ, "type", "", index.Types, "only facts of this `TYPE`: user, feedback, project or reference")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
}

// scope is the project a command looks at, from --project or the current
// directory.
func (o scopeOptions) scope() string {
	if p := o.project; p != "" {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return project.Slug(wd)
}

func runSearch(ctx context.Context, o *searchOptions) error {
	e, args := o.env, o.words
	if len(args) == 0 {
		return usageError{"give the words to search for"}
	}
	f, err := readFolder(e, o.global)
	if err != nil {
		return err
	}
	q := search.Query{Words: strings.Join(args, " "), Project: o.scope(), All: o.all, Type: o.typ, Limit: o.n,
		Explain: o.explain, AllVersions: o.allVersions}
	hits, err := findHits(ctx, f, q, func(err error) {
		fmt.Fprintf(e.stderr, "memoryd: the search index cannot be used (%v); answered from the files\n", err)
	})
	if errors.Is(err, search.ErrNoWords) {
		return usageError{fmt.Sprintf("give words to search for: %q has no letters or digits", q.Words)}
	}
	if err != nil {
		return err
	}
	hits = gateHits(f, hits)
	f.countUse(usage.Search, hitFiles(hits)...)
	chk := cite.NewChecker(workDir())
	out := make([]hitJSON, len(hits))
	for i, h := range hits {
		out[i] = hitJSON{Hit: h, Staleness: facts.StalenessOf(chk.File(f.dir, h.File))}
	}
	out = append(out, teamSearch(ctx, f, q)...)
	if o.json {
		return writeJSON(e.stdout, out)
	}
	if len(out) == 0 {
		fmt.Fprintf(e.stdout, "no facts match %q (try other words, or --all)\n", strings.Join(args, " "))
	}
	for _, h := range out {
		printHit(e.stdout, h)
	}
	return nil
}

// printHit is one search result as text.
func printHit(w io.Writer, h hitJSON) {
	printFact(w, h.File, h.Title, h.Name, h.Description, h.Project)
	if h.SupersededBy != "" {
		fmt.Fprintf(w, "    superseded by %s\n", h.SupersededBy)
	}
	if h.Team != "" {
		fmt.Fprintf(w, "    (%s)\n", h.Team)
	}
	if h.Stale {
		fmt.Fprintf(w, "    (%s)\n", h.Marker)
	}
	if h.Snippet != "" {
		fmt.Fprintf(w, "    %s\n", h.Snippet)
	}
	if h.Explain != nil {
		printExplain(w, h.Hit)
	}
}

// hitFiles are the files of hits, in order.
func hitFiles(hits []search.Hit) []string {
	files := make([]string, len(hits))
	for i, h := range hits {
		files[i] = h.File
	}
	return files
}

// printExplain prints why a hit ranked where it did, under it.
func printExplain(w io.Writer, h search.Hit) {
	x := h.Explain
	if fu := x.Fusion; fu != nil {
		how := "fused z-scores of the words' score and the cosine" // can be below 0: the average candidate scores 0
		if fu.Mode == search.FusionRRF {
			how = "fused ranks"
		}
		fmt.Fprintf(w, "    score %.3f = %s: words %s, embeddings %s (cosine %.3f); text %.3f × scope %.2f",
			h.Score, how, rankText(fu.Lexical), rankText(fu.Vector), fu.Cosine, x.Text, x.Boost)
	} else {
		fmt.Fprintf(w, "    score %.3f = text %.3f × scope %.2f", h.Score, x.Text, x.Boost)
	}
	if x.Pinned {
		fmt.Fprint(w, "; pinned")
	}
	if x.Updated != "" {
		fmt.Fprintf(w, "; updated %s", x.Updated)
	}
	if x.Prefix {
		fmt.Fprint(w, "; found by the last word as a prefix, after the other hits")
	}
	fmt.Fprintln(w)
	for _, t := range x.Terms {
		fmt.Fprintf(w, "      %-16s %.3f  %s %s in %s (idf %.2f)\n", t.Word, t.Score, t.Match, strings.Join(t.Forms, ", "), t.Fields, t.IDF)
	}
}

// rankText is a rank of a fused search: "#3", or "-" when the ranking
// did not have the fact among its first.
func rankText(r int) string {
	if r == 0 {
		return "-"
	}
	return "#" + strconv.Itoa(r)
}

func runList(ctx context.Context, o *listOptions) error {
	e := o.env
	var unused time.Duration
	if a := o.unused; a != "" {
		d, err := config.ParseDuration(a)
		if err != nil || d <= 0 {
			return usageError{fmt.Sprintf("--unused %q: give an age such as 60d or 36h", a)}
		}
		unused = d
	}
	f, err := readFolder(e, o.global)
	if err != nil {
		return err
	}
	snap, err := index.Scan(f.dir)
	if err != nil {
		return err
	}
	uses := f.uses()
	list := facts.Pick(f.dir, snap, uses, facts.Filter{Project: o.scope(), All: o.all, Type: o.typ, Unused: unused, Now: time.Now()})
	list = f.gate().Listed(list)
	f.txn().KeepVerdicts()
	chk := cite.NewChecker(workDir())
	if o.json {
		return writeJSON(e.stdout, facts.UsedViews(list, uses, chk))
	}
	for _, m := range list {
		printFact(e.stdout, m.File, m.Title, m.Name, m.Description, m.Project)
		if st := facts.StalenessOf(chk.Check(m)); st.Stale {
			fmt.Fprintf(e.stdout, "    (%s)\n", st.Marker)
		}
		if why := f.gate().PlantedHeld(m); why != "" {
			fmt.Fprintf(e.stdout, "    (held from agents: %s; memoryd check --confirm %s lets it out)\n", why, m.Name)
		}
	}
	if unused > 0 && len(list) == 0 {
		fmt.Fprintf(e.stdout, "every fact was used in the last %s\n", o.unused)
	}
	return nil
}

// workDir is the current directory, "" when it is gone.
func workDir() string {
	wd, _ := os.Getwd()
	return wd
}

// hitJSON is one hit of `memoryd search --json`.
type hitJSON struct {
	search.Hit
	facts.Staleness
	Team string `json:"team,omitempty"` // a team fact: who added it (team.Byline)
}

// printFact prints one fact on a line: file, title, description, project.
func printFact(w io.Writer, file, title, name, desc, proj string) {
	fmt.Fprintf(w, "%s  %s — %s", file, index.TitleOf(title, name, file), desc)
	if proj != "" {
		fmt.Fprintf(w, "  [%s]", proj)
	}
	fmt.Fprintln(w)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
