package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// Shell completion: `memoryd completion bash|zsh|fish` prints a script
// generated from the command registry (commands, their flags, the fixed
// values of enumerated flags), which asks the hidden
// `memoryd __complete-facts [--memory-dir DIR] [--config FILE] -- PREFIX`
// for fact names.

var completionShells = []string{"bash", "zsh", "fish"}

// completeFactsCmd is the hidden command the scripts call for fact names.
const completeFactsCmd = "__complete-facts"

// factArgCommands take a fact's NAME|FILE as their argument.
var factArgCommands = []string{"edit", "forget", "show", "why"}

func init() {
	register(&command{
		name:    "completion",
		args:    "bash|zsh|fish",
		summary: "Print a shell completion script: commands, flags, their values and fact names. bash: source <(memoryd completion bash); zsh: source <(memoryd completion zsh); fish: memoryd completion fish | source.",
		run:     runCompletion,
	})
}

func runCompletion(_ context.Context, e env, _ *flag.FlagSet, args []string) error {
	if len(args) == 0 {
		return usageError{"name the shell: bash, zsh or fish"}
	}
	if err := oneOf("shell", args[0], completionShells); err != nil {
		return err
	}
	spec := completionSpec()
	switch args[0] {
	case "bash":
		writeBashCompletion(e.stdout, spec)
	case "zsh":
		writeZshCompletion(e.stdout, spec)
	default:
		writeFishCompletion(e.stdout, spec)
	}
	return nil
}

// completeFacts prints the names of the memory folder's facts that start
// with the last argument, one a line: each file's name without .md, and
// each name a single fact has. Any problem prints nothing: a shell
// completing a word has nowhere to show an error.
func completeFacts(args []string, e env) {
	defer func() { _ = recover() }()
	fs := newFlagSet(&command{name: completeFactsCmd})
	pos, err := parseArgs(fs, args)
	if err != nil {
		return
	}
	prefix := ""
	if len(pos) > 0 {
		prefix = pos[len(pos)-1]
	}
	cfg, _, err := readConfig(e, fs)
	if err != nil || cfg.MemoryDir == "" {
		return
	}
	snap, err := index.Scan(cfg.MemoryDir)
	if err != nil {
		return
	}
	seen := map[string]int{}
	var out []string
	for _, m := range snap.Memories {
		if index.InInbox(m.File) {
			continue
		}
		out = append(out, strings.TrimSuffix(m.File, ".md"))
		seen[m.Name]++
	}
	for name, n := range seen {
		if n == 1 && name != "" {
			out = append(out, name)
		}
	}
	out = slices.DeleteFunc(out, func(s string) bool { return !strings.HasPrefix(s, prefix) })
	sort.Strings(out)
	out = slices.Compact(out)
	if len(out) > 0 {
		io.WriteString(e.stdout, strings.Join(out, "\n")+"\n")
	}
}

// complCommand is what the scripts know of one command.
type complCommand struct {
	name, summary string
	flags         []complFlag
	words         []string // the fixed words its first argument takes
	facts         bool     // its argument is a fact
}

type complFlag struct {
	name   string   // without dashes
	value  bool     // takes a value
	values []string // the fixed set of its values
	usage  string
}

func (f complFlag) written() string { return flagName(f.name) }

// completionSpec gathers the visible commands from the registry, sorted.
func completionSpec() []complCommand {
	var spec []complCommand
	for _, name := range commandNames() {
		cc := complCommand{name: name}
		if name == "help" {
			cc.summary = "Show the help of memoryd or of a command"
			cc.words = slices.DeleteFunc(commandNames(), func(s string) bool { return s == "help" })
			spec = append(spec, cc)
			continue
		}
		c := commands[name]
		cc.summary = shortSummary(c.summary)
		cc.facts = slices.Contains(factArgCommands, name)
		switch name {
		case "review":
			cc.words = reviewActions
		case "completion":
			cc.words = completionShells
		case "import":
			cc.words = []string{"claude"}
		}
		newFlagSet(c).VisitAll(func(f *flag.Flag) {
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			_, usage := flag.UnquoteUsage(f)
			cc.flags = append(cc.flags, complFlag{name: f.Name, value: !ok || !b.IsBoolFlag(), values: enumValues(f), usage: shortSummary(usage)})
		})
		spec = append(spec, cc)
	}
	return spec
}

// shortSummary is a summary's first clause, on one line, for the shells
// that show one beside each word.
func shortSummary(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, sep := range []string{": ", "; ", ". ", " (", ", "} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	return strings.TrimSuffix(s, ".")
}

func names(spec []complCommand) []string {
	var out []string
	for _, c := range spec {
		out = append(out, c.name)
	}
	return out
}

// valueCases are the shell case patterns cmd:flag for the flags that take
// a value: those with a fixed set, with it; memory-dir and config, which
// complete paths, left out; the others, which take free text, together.
func valueCases(spec []complCommand) (fixed [][2]string, free []string) {
	byValues := map[string][]string{}
	var order []string
	for _, c := range spec {
		for _, f := range c.flags {
			switch {
			case !f.value || isDirFlag(f.name) || f.name == "config":
			case len(f.values) > 0:
				k := strings.Join(f.values, " ")
				if _, ok := byValues[k]; !ok {
					order = append(order, k)
				}
				byValues[k] = append(byValues[k], c.name+":"+f.name)
			default:
				free = append(free, c.name+":"+f.name)
			}
		}
	}
	for _, k := range order {
		fixed = append(fixed, [2]string{strings.Join(byValues[k], "|"), k})
	}
	return fixed, free
}

// isDirFlag says that flag name's value is a folder.
func isDirFlag(name string) bool { return name == "memory-dir" || name == "dir" }

func flagWords(c complCommand) string {
	var out []string
	for _, f := range c.flags {
		out = append(out, f.written())
	}
	return strings.Join(out, " ")
}

func writeBashCompletion(w io.Writer, spec []complCommand) {
	fixed, free := valueCases(spec)
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p(`# bash completion for memoryd, printed by 'memoryd completion bash'.
# Load it with: source <(memoryd completion bash)

# _memoryd_reply sets COMPREPLY to the lines it reads.
_memoryd_reply() {
    COMPREPLY=()
    local line
    while IFS= read -r line; do
        COMPREPLY+=("$line")
    done
}

# _memoryd_facts prints the fact names that start with $1, from the memory
# folder and configuration the command line names.
_memoryd_facts() {
    local i w opts=()
    for (( i = 2; i < COMP_CWORD; i++ )); do
        w="${COMP_WORDS[i]}"
        case "$w" in
            --memory-dir|-memory-dir|--config|-config)
                if [[ "${COMP_WORDS[i+1]}" == "=" ]]; then
                    opts+=("$w" "${COMP_WORDS[i+2]}")
                else
                    opts+=("$w" "${COMP_WORDS[i+1]}")
                fi ;;
        esac
    done
    command memoryd %s "${opts[@]}" -- "$1" 2>/dev/null
}

_memoryd() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" flag="" cmd="${COMP_WORDS[1]}"
    (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"
    COMPREPLY=()
    if (( COMP_CWORD == 1 )); then
        _memoryd_reply < <(compgen -W "%s" -- "$cur")
        return 0
    fi
    # The flag whose value is typed: --flag VALUE, or --flag=VALUE, which
    # bash splits into --flag, = and VALUE.
    if [[ "$cur" == "=" ]]; then
        flag="$prev"
        cur=""
    elif [[ "$prev" == "=" ]] && (( COMP_CWORD > 2 )); then
        flag="${COMP_WORDS[COMP_CWORD-2]}"
    elif [[ "$prev" == -* ]]; then
        flag="$prev"
    fi
    flag="${flag#-}"
    flag="${flag#-}"
    case "$cmd:$flag" in
`, completeFactsCmd, strings.Join(names(spec), " "))
	for _, f := range fixed {
		p("        %s)\n            _memoryd_reply < <(compgen -W \"%s\" -- \"$cur\")\n            return 0 ;;\n", f[0], f[1])
	}
	p(`        *:memory-dir|*:dir)
            compopt -o filenames 2>/dev/null
            _memoryd_reply < <(compgen -d -- "$cur")
            return 0 ;;
        *:config)
            compopt -o filenames 2>/dev/null
            _memoryd_reply < <(compgen -f -- "$cur")
            return 0 ;;
`)
	if len(free) > 0 {
		p("        %s)\n            return 0 ;;\n", strings.Join(free, "|"))
	}
	p("    esac\n    if [[ \"$cur\" == -* ]]; then\n        case \"$cmd\" in\n")
	for _, c := range spec {
		if len(c.flags) > 0 {
			p("            %s) _memoryd_reply < <(compgen -W \"%s\" -- \"$cur\") ;;\n", c.name, flagWords(c))
		}
	}
	p("        esac\n        return 0\n    fi\n    case \"$cmd\" in\n")
	var factCmds []string
	for _, c := range spec {
		if c.facts {
			factCmds = append(factCmds, c.name)
		}
		if len(c.words) > 0 {
			p("        %s) _memoryd_reply < <(compgen -W \"%s\" -- \"$cur\") ;;\n", c.name, strings.Join(c.words, " "))
		}
	}
	p("        %s) _memoryd_reply < <(_memoryd_facts \"$cur\") ;;\n", strings.Join(factCmds, "|"))
	p("    esac\n    return 0\n}\n\ncomplete -F _memoryd memoryd\n")
}

// zshQuote quotes s for zsh and bash: in single quotes.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeZshCompletion(w io.Writer, spec []complCommand) {
	fixed, free := valueCases(spec)
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p(`#compdef memoryd
# zsh completion for memoryd, printed by 'memoryd completion zsh'.
# Load it with: source <(memoryd completion zsh)   (after compinit)
# or save it as _memoryd in a folder on $fpath.

# _memoryd_facts prints the fact names that start with $1, from the memory
# folder and configuration the command line names.
_memoryd_facts() {
  local i
  local -a opts
  for (( i = 3; i < CURRENT; i++ )); do
    case ${words[i]} in
      --memory-dir|-memory-dir|--config|-config) opts+=( ${words[i]} ${words[i+1]} ) ;;
      --memory-dir=*|-memory-dir=*|--config=*|-config=*) opts+=( ${words[i]} ) ;;
    esac
  done
  command memoryd %s $opts -- "$1" 2>/dev/null
}

_memoryd() {
  local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd=${words[2]} flag=
  if (( CURRENT == 2 )); then
    local -a cmds
    cmds=(
`, completeFactsCmd)
	for _, c := range spec {
		p("      %s\n", zshQuote(c.name+":"+c.summary))
	}
	p(`    )
    _describe -t commands 'memoryd command' cmds
    return
  fi
  if [[ $cur == -*=* ]]; then
    flag=${cur%%%%=*}
    compset -P '*='
    cur=${cur#*=}
  elif [[ $prev == -* ]]; then
    flag=$prev
  fi
  flag=${flag#-}
  flag=${flag#-}
  case "$cmd:$flag" in
`)
	for _, f := range fixed {
		p("    %s) compadd -- %s; return ;;\n", f[0], f[1])
	}
	p("    *:memory-dir|*:dir) _files -/; return ;;\n    *:config) _files; return ;;\n")
	if len(free) > 0 {
		p("    %s) return ;;\n", strings.Join(free, "|"))
	}
	p("  esac\n  if [[ $cur == -* ]]; then\n    case $cmd in\n")
	for _, c := range spec {
		if len(c.flags) > 0 {
			p("      %s) compadd -- %s ;;\n", c.name, flagWords(c))
		}
	}
	p("    esac\n    return\n  fi\n  case $cmd in\n")
	var factCmds []string
	for _, c := range spec {
		if c.facts {
			factCmds = append(factCmds, c.name)
		}
		if len(c.words) > 0 {
			p("    %s) compadd -- %s ;;\n", c.name, strings.Join(c.words, " "))
		}
	}
	p("    %s) compadd -- ${(f)\"$(_memoryd_facts \"$cur\")\"} ;;\n", strings.Join(factCmds, "|"))
	p(`  esac
}

if [[ ${funcstack[1]} == _memoryd ]]; then
  _memoryd "$@"
else
  compdef _memoryd memoryd
fi
`)
}

// fishQuote quotes s for fish: in single quotes, where only \ and ' are
// escaped.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func writeFishCompletion(w io.Writer, spec []complCommand) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p(`# fish completion for memoryd, printed by 'memoryd completion fish'.
# Load it with: memoryd completion fish | source

# __memoryd_facts prints the fact names that start with the word being
# typed, from the memory folder and configuration the command line names.
function __memoryd_facts
    set -l tokens (commandline -opc)
    set -l opts
    set -l n (count $tokens)
    for i in (seq 3 $n)
        switch $tokens[$i]
            case --memory-dir -memory-dir --config -config
                if test $i -lt $n
                    set -a opts $tokens[$i] $tokens[(math $i + 1)]
                end
            case '--memory-dir=*' '-memory-dir=*' '--config=*' '-config=*'
                set -a opts $tokens[$i]
        end
    end
    command memoryd %s $opts -- (commandline -ct) 2>/dev/null
end

complete -c memoryd -f
`, completeFactsCmd)
	for _, c := range spec {
		p("complete -c memoryd -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, c := range spec {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		for _, f := range c.flags {
			opt := "-l " + f.name
			if len([]rune(f.name)) == 1 {
				opt = "-s " + f.name
			}
			switch {
			case isDirFlag(f.name):
				opt += " -x -a '(__fish_complete_directories)'"
			case f.name == "config":
				opt += " -r -F"
			case len(f.values) > 0:
				opt += " -x -a " + fishQuote(strings.Join(f.values, " "))
			case f.value:
				opt += " -x"
			}
			p("complete -c memoryd -n %s %s -d %s\n", cond, opt, fishQuote(f.usage))
		}
		if len(c.words) > 0 {
			p("complete -c memoryd -n %s -a %s\n", cond, fishQuote(strings.Join(c.words, " ")))
		}
		if c.facts {
			p("complete -c memoryd -n %s -a '(__memoryd_facts)'\n", cond)
		}
	}
}
