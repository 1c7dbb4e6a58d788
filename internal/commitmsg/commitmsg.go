// Package commitmsg is memoryd's commit vocabulary: the one place where the
// messages of memoryd's commits are written and read back.
//
// A commit's subject is for people ("memory: add user-email.md (cli)").
// Policy — which commits undo takes back by default, whose text a model may
// not drop, what history calls a commit — reads the structured trailers
// every memoryd commit carries:
//
//	Memoryd-Kind: add
//	Memoryd-Writer: person
//
// never the subject. Commits made before the trailers existed are read from
// their subject, by Parse alone; no other code matches a subject. An
// extraction's and a compaction's commit also end with the tokens their
// model calls spent ("Tokens: 1234").
package commitmsg

import (
	"regexp"
	"strconv"
	"strings"
)

// Kind is what a memoryd commit did.
type Kind string

// The kinds of commit. KindOther is not memoryd's: a person's commit, or
// another tool's.
const (
	KindAdd        Kind = "add"        // memory: add x.md (cli)
	KindReplace    Kind = "replace"    // memory: replace x.md (mcp)
	KindEdit       Kind = "edit"       // memory: edit x.md (cli)
	KindForget     Kind = "forget"     // memory: forget x.md (cli)
	KindConfirm    Kind = "confirm"    // memory: confirm x.md (cli) — the cited files' versions recorded anew
	KindSupersede  Kind = "supersede"  // memory: supersede old.md with new.md (cli) — new written, old marked superseded_by
	KindReview     Kind = "review"     // memory: review: accept x.md (cli)
	KindImport     Kind = "import"     // memory: import 3 facts from Claude Code
	KindExtraction Kind = "extraction" // memory: extract from <source> session <id>
	KindCompaction Kind = "compaction" // memory: compaction (…)
	KindCheckpoint Kind = "checkpoint" // memory: checkpoint before compaction
	KindUpdate     Kind = "update"     // memory: update a.md — the daemon's commit of hand edits
	KindUndo       Kind = "undo"       // memory: undo …
	KindSync       Kind = "sync"       // memory: sync: merge origin/main — sync's merge and the indexes it rebuilt
	KindMemoryd    Kind = "memoryd"    // another "memory: " subject of an older memoryd
	KindOther      Kind = ""
)

// Writer says who wrote the text a commit records.
type Writer string

const (
	// Person: typed by a person — a hand edit the daemon committed, a
	// memory command run by hand, a review, an undo.
	Person Writer = "person"
	// Model: written by a model — an extraction, a compaction, an agent's
	// save through the MCP server, an import of an agent's own memory.
	Model Writer = "model"
)

// Subjects and prefixes the vocabulary shares with its readers.
const (
	CheckpointSubject = "memory: checkpoint before compaction"
	CompactionPrefix  = "memory: compaction"
	UndoPrefix        = "memory: undo "
)

// Trailer keys.
const (
	kindKey   = "Memoryd-Kind"
	writerKey = "Memoryd-Writer"
	tokensKey = "Tokens"
)

// Message is one memoryd commit message.
type Message struct {
	Subject string // one line
	Body    string // optional paragraphs after the subject
	Kind    Kind
	Writer  Writer
	// Tokens is what the model calls behind an extraction or a compaction
	// spent: their commits end with a "Tokens: N" trailer (0 too), so
	// `git log --format='%(trailers:key=Tokens,valueonly)'` lists them.
	// Other kinds carry none.
	Tokens int
}

// String is the whole message: subject, body, trailers.
func (m Message) String() string {
	var b strings.Builder
	b.WriteString(oneLine(m.Subject))
	b.WriteString("\n\n")
	if body := strings.TrimSpace(m.Body); body != "" {
		b.WriteString(body)
		b.WriteString("\n\n")
	}
	if m.Kind != KindOther {
		b.WriteString(kindKey + ": " + string(m.Kind) + "\n")
	}
	if m.Writer != "" {
		b.WriteString(writerKey + ": " + string(m.Writer) + "\n")
	}
	if m.Kind == KindExtraction || m.Kind == KindCompaction {
		b.WriteString(tokensKey + ": " + strconv.Itoa(m.Tokens) + "\n")
	}
	return b.String()
}

// TrailerFormat is the `git log --format` fragment that prints a commit's
// kind and writer trailers, separated by %x1f, for ParseTrailers.
const TrailerFormat = "%(trailers:key=" + kindKey + ",valueonly,separator=%x2C)%x1f%(trailers:key=" + writerKey + ",valueonly,separator=%x2C)"

// Parse reads a whole commit message back: the trailers when it has them,
// else the kind and writer its subject implies (commits of an older
// memoryd).
func Parse(message string) Message {
	message = strings.TrimLeft(message, "\n")
	subject, rest, _ := strings.Cut(message, "\n")
	m := Message{Subject: subject, Body: strings.TrimSpace(rest)}
	for _, line := range strings.Split(rest, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		switch {
		case !ok:
		case k == kindKey:
			m.Kind = Kind(v)
		case k == writerKey:
			m.Writer = Writer(v)
		case k == tokensKey:
			m.Tokens, _ = strconv.Atoi(v)
		}
	}
	return complete(m)
}

// FromParts is Parse for what TrailerFormat printed beside %s.
func FromParts(subject, kind, writer string) Message {
	return complete(Message{Subject: subject, Kind: Kind(strings.TrimSpace(kind)), Writer: Writer(strings.TrimSpace(writer))})
}

// complete fills in what the trailers did not say, from the subject.
func complete(m Message) Message {
	if m.Kind == KindOther && m.Writer == "" {
		m.Kind, m.Writer = legacy(m.Subject)
	}
	if m.Writer == "" {
		m.Writer = writerOf(m.Kind)
	}
	return m
}

// factVerb is a fact command's subject: its verb, its file and its writer,
// one word ("cli") or an MCP client ("mcp: claude-code", before the
// trailers existed).
var factVerb = regexp.MustCompile(`^memory: (add|replace|edit|forget|confirm) \S+ \(([a-z0-9-]+|mcp: [^()]+)\)$`)

// legacy is what an older memoryd's subject says: its kind and writer.
func legacy(subject string) (Kind, Writer) {
	switch {
	case strings.HasPrefix(subject, CompactionPrefix+" ("):
		return KindCompaction, Model
	case subject == CheckpointSubject:
		return KindCheckpoint, Person
	case strings.HasPrefix(subject, "memory: extract from "):
		return KindExtraction, Model
	case strings.HasPrefix(subject, "memory: import "):
		return KindImport, Model
	case strings.HasPrefix(subject, "memory: update"):
		return KindUpdate, Person
	case strings.HasPrefix(subject, UndoPrefix):
		return KindUndo, Person
	case strings.HasPrefix(subject, "memory: review: "):
		return KindReview, Person
	}
	if m := factVerb.FindStringSubmatch(subject); m != nil {
		w := Person
		if strings.HasPrefix(m[2], "mcp") {
			w = Model
		}
		return Kind(m[1]), w
	}
	if strings.HasPrefix(subject, "memory: ") {
		return KindMemoryd, Person
	}
	return KindOther, ""
}

// writerOf is the writer a kind implies when a message does not say.
func writerOf(k Kind) Writer {
	switch k {
	case KindOther:
		return ""
	case KindExtraction, KindCompaction, KindImport:
		return Model
	}
	return Person
}

// Memoryd reports whether the commit is memoryd's own.
func (m Message) Memoryd() bool { return m.Kind != KindOther }

// ModelWritten reports whether the commit records text a model wrote.
func (m Message) ModelWritten() bool { return m.Writer == Model }

// HandEdits reports whether the commit is the daemon's commit of a
// person's own edits, which undo takes back only when named.
func (m Message) HandEdits() bool { return m.Kind == KindUpdate }

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
