package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/memoryd/memoryd/internal/suggest"
)

// This file is what the command line does with a flag typo: a mistyped
// flag gets a "did you mean" (cobra suggests commands, not flags), a
// value outside a fixed set is refused with the valid values named.

// flagError rewrites pflag's parse errors into usage errors in the user's
// words: a flag that does not exist (with the one meant), a value outside
// a fixed set (with the valid values), a value that does not parse.
func flagError(cmd *cobra.Command, err error) error {
	var notExist *pflag.NotExistError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &invalid):
		var ue usageError
		if errors.As(invalid, &ue) {
			return ue
		}
		f := invalid.GetFlag()
		var ne *strconv.NumError
		if errors.As(invalid, &ne) {
			return usageError{fmt.Sprintf("invalid value %q for flag %s: parse error", invalid.GetValue(), writtenFlag(f))}
		}
		return usageError{fmt.Sprintf("invalid value %q for flag %s: %v", invalid.GetValue(), writtenFlag(f), errors.Unwrap(invalid))}
	case errors.As(err, &notExist):
		written, name := "--"+notExist.GetSpecifiedName(), notExist.GetSpecifiedName()
		if group := notExist.GetSpecifiedShortnames(); group != "" {
			name, _, _ = strings.Cut(group, "=")
			written = "-" + name
		}
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		msg := "unknown flag " + written
		if s := suggest.Word(name, names); s != "" {
			msg += "; did you mean --" + s + "?"
		}
		return usageError{msg}
	}
	return usageError{err.Error()}
}

// writtenFlag is how help shows flag f: its one letter if it has one.
func writtenFlag(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand
	}
	return "--" + f.Name
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

// enumValue is a string flag with a fixed set of values, checked while
// the flags are parsed, before anything runs. The empty string stands for
// the flag not given and is accepted when it is the default.
type enumValue struct {
	name    string
	value   *string
	allowed []string
	empty   bool // "" is accepted
}

func (v *enumValue) String() string { return *v.value }
func (v *enumValue) Type() string   { return "string" }

func (v *enumValue) Set(s string) error {
	if s != "" || !v.empty {
		if err := oneOf("--"+v.name, s, v.allowed); err != nil {
			return err
		}
	}
	*v.value = s
	return nil
}

// enumFlag binds the flag name of cmd to p, whose value must be one of
// allowed (or def), which help names and the shell completes. The usage
// should name the value's placeholder in backquotes.
func enumFlag(cmd *cobra.Command, p *string, name, def string, allowed []string, usage string) {
	*p = def
	if !strings.Contains(usage, allowed[0]) {
		usage += " (" + strings.Join(allowed, ", ") + ")"
	}
	cmd.Flags().Var(&enumValue{name: name, value: p, allowed: allowed, empty: def == ""}, name, usage)
	cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(allowed, cobra.ShellCompDirectiveNoFileComp))
}

// oneOfArg checks that positional argument i, when given, is one of
// allowed; what names its role ("action", "shell").
func oneOfArg(i int, what string, allowed []string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > i {
			return oneOf(what, args[i], allowed)
		}
		return nil
	}
}
