package recall

import (
	"path"
	"strings"
	"unicode"
)

// FailedPreface is the first line of what the tool-call hook adds after a
// failed command; %s is the command as facts name it ("make migrate").
const FailedPreface = "From the user's long-term memory (memoryd), facts about `%s` — the command that just failed:"

// FileFacts is the first line of what the tool-call hook adds before a
// read or an edit; %s is the file, relative to its project.
const FileFacts = "From the user's long-term memory (memoryd), facts about %s — the file this tool call reads or edits:"

// WithPreface is text as Render made it with its first line replaced by
// preface.
func WithPreface(preface, text string) string {
	return preface + strings.TrimPrefix(text, Preface)
}

// setupPrograms are commands whose failure says nothing a fact would be
// about (moving around, printing, testing a condition).
var setupPrograms = map[string]bool{"cd": true, "echo": true, "printf": true, "export": true, "true": true,
	"false": true, "set": true, "source": true, "ls": true, "pwd": true, "test": true, "sleep": true,
	"cat": true, "head": true, "tail": true, "grep": true, "rg": true, "sed": true, "wc": true}

// wrappers are words before the program that run it.
var wrappers = map[string]bool{"sudo": true, "env": true, "time": true, "command": true, "nohup": true, "exec": true}

// CommandPhrases are the names facts know a failed command by: for each
// part of the command line (split at ; && || | and newlines), its program
// and first plain argument ("make migrate", "go test", "terraform apply"),
// or the program alone ("pytest"), each once. Parts that only move
// around or print (cd, echo, ls, …) are left out.
func CommandPhrases(command string) []string {
	var out []string
	seen := map[string]bool{}
	parts := strings.FieldsFunc(command, func(r rune) bool { return r == ';' || r == '&' || r == '|' || r == '\n' })
	for _, part := range parts {
		p := commandPhrase(strings.Fields(part))
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// commandPhrase is one part's phrase, "" for none.
func commandPhrase(words []string) string {
	for len(words) > 0 && (wrappers[words[0]] || strings.Contains(words[0], "=")) {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	prog := strings.ToLower(path.Base(strings.Trim(words[0], `"'`)))
	if len(prog) < 2 || setupPrograms[prog] || !plainWord(prog) {
		return ""
	}
	if len(words) > 1 && plainWord(words[1]) {
		return prog + " " + strings.ToLower(words[1])
	}
	return prog
}

// plainWord reports whether w is a word a fact would write as it is: a
// name of letters, digits and - _ : . (not a flag, a path or a quote).
func plainWord(w string) bool {
	if w == "" || w[0] == '-' || w[0] == '.' {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != ':' && r != '.' {
			return false
		}
	}
	return true
}

// Mentions returns the first of phrases that f's description or body
// holds as whole words (case and spacing aside), "" for none.
func Mentions(f Fact, phrases []string) string {
	text := " " + strings.Join(strings.Fields(strings.ToLower(f.Description+"\n"+f.Body)), " ") + " "
	for _, p := range phrases {
		for i := 0; ; {
			j := strings.Index(text[i:], p)
			if j < 0 {
				break
			}
			at := i + j
			if !nameByte(text[at-1]) && !nameByte(text[at+len(p)]) {
				return p
			}
			i = at + 1
		}
	}
	return ""
}

// nameByte reports whether b continues a name (so "make migrate" is not
// found in "make migrates" or "remake migrate").
func nameByte(b byte) bool {
	return b == '-' || b == '_' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b >= 0x80
}
