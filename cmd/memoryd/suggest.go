package main

import (
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// This file is what the command line does with a typo: a mistyped command
// or flag gets a "did you mean", a value outside a fixed set is refused
// with the valid values named.

// editDistance is the Damerau–Levenshtein distance between a and b in its
// optimal-string-alignment form: insertions, deletions, substitutions and
// transpositions of two neighbours each cost one.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j]; three rows suffice.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// suggest is the candidate word most likely meant: the nearest within an
// edit distance of two (and less than word's length, so that "x" does not
// suggest "n"), else the only candidate word is a prefix of. Ties go to
// the candidate first in sort order. "" when nothing is close.
func suggest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	best, bestD := "", 3
	sorted := slices.Clone(candidates)
	sort.Strings(sorted)
	for _, c := range sorted {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if d < bestD && d < len([]rune(word)) {
			best, bestD = c, d
		}
	}
	if best != "" || len(word) < 2 {
		return best
	}
	var prefixed []string
	for _, c := range sorted {
		if strings.HasPrefix(c, word) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// commandNames are the commands a user may type: the registered ones but
// the hidden, and help.
func commandNames() []string {
	names := []string{"help"}
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// unknownCommand says that name is no command, with the one it most likely
// meant, and where the list is: never the whole help.
func unknownCommand(prefix, name string) string {
	msg := fmt.Sprintf("%s: unknown command %q", prefix, name)
	if s := suggest(name, commandNames()); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg + "\nRun 'memoryd --help' for the list of commands.\n"
}

// flagName is how a flag is written: -n for one letter, --name otherwise,
// as the usage shows them.
func flagName(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// notDefinedPrefix starts the flag package's error for a flag fs does not
// have (unchanged since Go 1.0; TestCLIUnknownFlagMessage watches it).
const notDefinedPrefix = "flag provided but not defined: -"

// flagError rewrites the flag package's parse errors that a person makes
// most: a flag that does not exist (with the one meant), a value outside a
// fixed set (with the valid values). Others pass through.
func flagError(fs *flag.FlagSet, err error) error {
	var bad error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := f.Value.(*enumValue); ok && v.bad != nil && bad == nil {
			bad = v.bad
		}
	})
	if bad != nil {
		return usageError{bad.Error()}
	}
	name, ok := strings.CutPrefix(err.Error(), notDefinedPrefix)
	if !ok {
		return usageError{err.Error()}
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	msg := "unknown flag " + flagName(name)
	if s := suggest(name, names); s != "" {
		msg += "; did you mean " + flagName(s) + "?"
	}
	return usageError{msg}
}

// oneOf refuses a value outside a fixed set, naming the valid ones:
// `--type "projcet" is not one of user, feedback, project, reference`.
// what is the flag (--type) or the argument's role (shell).
func oneOf(what, value string, allowed []string) error {
	if slices.Contains(allowed, value) {
		return nil
	}
	return usageError{fmt.Sprintf("%s %q is not one of %s", what, value, strings.Join(allowed, ", "))}
}

// enumValue is a string flag with a fixed set of values; every such flag
// is one (enumFlag), so that the set is checked, named in the error and
// offered by the shell completion. The empty string stands for the flag
// not given and is accepted when it is the default.
type enumValue struct {
	name    string
	value   string
	allowed []string
	empty   bool // "" is accepted
	bad     error
}

func (v *enumValue) String() string { return v.value }

func (v *enumValue) Set(s string) error {
	if s == "" && v.empty {
		v.value = s
		return nil
	}
	if err := oneOf(flagName(v.name), s, v.allowed); err != nil {
		v.bad = err
		return err
	}
	v.value = s
	return nil
}

// enumFlag defines the flag name, whose value must be one of allowed (or
// def). The usage should name the value's placeholder in backquotes.
func enumFlag(fs *flag.FlagSet, name, def string, allowed []string, usage string) {
	fs.Var(&enumValue{name: name, value: def, allowed: allowed, empty: def == ""}, name, usage)
}

// enumValues is the fixed set of flag f's values, or nil.
func enumValues(f *flag.Flag) []string {
	if v, ok := f.Value.(*enumValue); ok {
		return v.allowed
	}
	return nil
}
