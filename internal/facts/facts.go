// Package facts decides what a fact written by hand or by an agent may be:
// created, replaced, edited or forgotten, with every check in one place —
// the format and the name rule, secrets, readonly files, duplicates,
// another project's fact, a file git ignores. It plans; the write
// transaction (package txn) writes and commits. The memory commands (add,
// edit, forget, review, import) and the MCP server call it; none of them
// checks anything itself.
package facts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/folder"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/project"
	"github.com/memoryd/memoryd/internal/secrets"
)

// Errors a writer's caller may act on; each comes wrapped with the file and
// the details, in words for the person or the model that asked.
var (
	ErrInvalid   = errors.New("invalid fact")
	ErrSecret    = errors.New("holds a secret")
	ErrReadonly  = errors.New("is readonly")
	ErrExists    = errors.New("already exists")
	ErrDuplicate = errors.New("duplicates another fact")
	ErrNotFound  = errors.New("no such fact")
	ErrBusy      = folder.ErrBusy
	ErrIgnored   = errors.New("is ignored by git")
	ErrHandLines = errors.New("would drop lines a person wrote")
)

// Limits of what one fact may hold.
const (
	MaxDescription = 300
	MaxBody        = 8000
)

// Fact is what a caller wants saved.
type Fact struct {
	Type        string // user, feedback, project or reference
	Name        string // kebab slug; the file is <type>-<name>.md
	Description string // one line, the index's recall hook
	Body        string
	Project     string // the project slug when the fact holds in one repository only, "" for a global fact
	// Cites are the files the fact rests on (metadata.cites), as given:
	// paths, each optionally with "#symbol"; a blob given with one is
	// ignored, memoryd hashes the file itself. Relative paths are taken
	// from CiteFrom, a folder inside the fact's project (its root is that
	// folder's project.Root).
	Cites    []string
	CiteFrom string
	// Free: when another fact holds the name, Save takes the first free
	// one with a numbered suffix ("uses-fish-2") instead of refusing — for
	// a name memoryd derived (FromText), not one a person chose.
	Free bool
}

// File is the fact's file name.
func (f Fact) File() string { return f.Type + "-" + f.Name + ".md" }

// Options configure a Writer.
type Options struct {
	Folder *folder.Folder // the memory folder, written through its transactions
	Who    string         // names the writer in the lock and in commit messages ("cli", "mcp: codex")
	// Model: what this writer saves is what a model said (an agent through
	// the MCP server), not what a person typed. A model may not drop lines
	// a person wrote, and its commits say it wrote them.
	Model bool
	// Now is the clock for metadata.updated; nil means time.Now.
	Now func() time.Time
	// Dir is the folder the writer works from: cited paths resolve from
	// it and a fact's project root is found from it; "" means the
	// current directory.
	Dir string
}

// Writer writes facts into one memory folder. Safe for concurrent use: the
// write lock serializes writers across processes.
type Writer struct{ opts Options }

// New returns a Writer; it touches nothing.
func New(opts Options) *Writer {
	if opts.Who == "" {
		opts.Who = "cli"
	}
	return &Writer{opts: opts}
}

// model reports whether this writer writes what a model said (an agent
// through the MCP server) rather than what a person typed.
func (w *Writer) model() bool { return w.opts.Model }

// writer is the commit vocabulary's name for who wrote what w writes.
func (w *Writer) writer() commitmsg.Writer {
	if w.model() {
		return commitmsg.Model
	}
	return commitmsg.Person
}

// Done is what a write did.
type Done struct {
	File   string
	Action string // "created", "replaced", "edited", "forgot", "confirmed"
	// Superseded is the file a new fact replaced (Supersede): it stays in
	// the folder, marked metadata.superseded_by.
	Superseded string
	Commit     string // "" when there is no repository, or nothing changed
	// Ignored: the file is one git ignores, so the change is not in the
	// history and cannot be undone from it.
	Ignored bool

	reason string // why it was forgotten, for the commit message
}

// now is the time of this writer's writes (Options.Now, else the clock).
func (w *Writer) now() time.Time {
	if w.opts.Now != nil {
		return w.opts.Now()
	}
	return time.Now()
}

// today is the date metadata.updated records, in the local time zone.
func (w *Writer) today() string { return w.now().Format(time.DateOnly) }

// source is this writer's entry in metadata.source.
func (w *Writer) source() index.Source {
	wd, _ := os.Getwd()
	return NewSource(w.opts.Who, w.now(), wd)
}

// Check returns why f cannot be saved as it is, as an error wrapping
// ErrInvalid or ErrSecret, or nil. It reads nothing.
func Check(f Fact) error {
	switch {
	case !slices.Contains(index.Types, f.Type):
		return fmt.Errorf("%w: type %q is not one of %s", ErrInvalid, f.Type, strings.Join(index.Types, ", "))
	case !index.ValidName(f.Name):
		return fmt.Errorf("%w: name %q must be lower-case words joined by hyphens (a-z, 0-9), at most 64 characters", ErrInvalid, f.Name)
	case strings.TrimSpace(f.Description) == "":
		return fmt.Errorf("%w: the description is empty; it is the one line the index shows", ErrInvalid)
	case strings.ContainsAny(f.Description, "\r\n"):
		return fmt.Errorf("%w: the description must be one line", ErrInvalid)
	case len(f.Description) > MaxDescription:
		return fmt.Errorf("%w: the description is %d bytes, at most %d", ErrInvalid, len(f.Description), MaxDescription)
	case strings.TrimSpace(f.Body) == "":
		return fmt.Errorf("%w: the body is empty", ErrInvalid)
	case len(f.Body) > MaxBody:
		return fmt.Errorf("%w: the body is %d bytes, at most %d: one fact per file", ErrInvalid, len(f.Body), MaxBody)
	case index.CleanText(f.Description, false, 0) != f.Description || index.CleanText(f.Body, true, 0) != f.Body:
		return fmt.Errorf("%w: it holds control or invisible characters", ErrInvalid)
	case f.Project != "" && !project.Valid(f.Project):
		return fmt.Errorf("%w: project %q must be a slug like the folder name of its repository (lower-case words joined by hyphens)", ErrInvalid, f.Project)
	case f.Project != "" && f.Type == "user":
		return fmt.Errorf("%w: a user fact is about the person, in every project; leave out the project", ErrInvalid)
	}
	return checkSecrets(f.Name + "\n" + f.Description + "\n" + f.Body)
}

// checkSecrets names the first secret in text by kind and line.
func checkSecrets(text string) error {
	if found := secrets.FindSecrets(text); len(found) > 0 {
		return fmt.Errorf("%w (%s on line %d): memoryd never stores secrets; keep them in a password manager and write where to find them instead",
			ErrSecret, found[0].Kind, found[0].Line)
	}
	if strings.Contains(text, secrets.Redacted) {
		return fmt.Errorf("%w: it holds %s, a secret removed from a transcript", ErrSecret, secrets.Redacted)
	}
	return nil
}

// Save writes f. An existing fact of the same file is replaced only when
// replace is set, and never when it is readonly; a fact whose text another
// fact already holds is refused. The change is committed at once.
func (w *Writer) Save(ctx context.Context, f Fact, replace bool) (Done, error) {
	f.Description = strings.TrimSpace(f.Description)
	f.Body = strings.TrimSpace(strings.ReplaceAll(f.Body, "\r\n", "\n")) + "\n"
	if err := Check(f); err != nil {
		return Done{}, err
	}
	return w.locked(ctx, func(snap index.Snapshot) (Done, []byte, string, error) {
		if f.Free {
			f.Name = freeName(snap, map[string]bool{}, f)
		}
		file := f.File()
		cur := ByFile(snap, file)
		if err := unreadable(snap, file); err != nil {
			return Done{}, nil, "", err
		}
		if dup := duplicate(snap, file, f); dup != "" {
			return Done{}, nil, "", fmt.Errorf("%s %w %s: %s", file, ErrDuplicate, dup, "say it there, or forget that one first")
		}
		cites, err := w.citesOf(f)
		if err != nil {
			return Done{}, nil, "", err
		}
		m := index.NewMemory(f.Type, f.Name, f.Description, f.Body)
		m.Project, m.Cites = f.Project, cites
		done := Done{File: file, Action: "created"}
		hash := ""
		if cur != nil {
			switch {
			case cur.Project != f.Project:
				return Done{}, nil, "", otherProject(snap, cur, f)
			case cur.Readonly:
				return Done{}, nil, "", fmt.Errorf("%s %w (metadata.readonly): memoryd never changes it", file, ErrReadonly)
			case !replace:
				return Done{}, nil, "", fmt.Errorf("%s %w; replace it explicitly, or choose another name", file, ErrExists)
			}
			if w.model() {
				if err := w.keepHandLines(ctx, cur, f.Body); err != nil {
					return Done{}, nil, "", err
				}
			}
			c := *cur // keep its other frontmatter keys
			c.Description, c.Body, c.Project = f.Description, f.Body, f.Project
			if len(cites) > 0 {
				c.Cites = cites
			} else {
				c.Cites = restated(cur, w.dir())
			}
			m, hash, done.Action = &c, cur.Hash, "replaced"
		}
		Stamp(m, w.source(), w.now())
		return done, m.Format(), hash, nil
	})
}

// otherProject is the error for a save of f over cur, a fact of the same
// file in another project (or global): a write scoped to one project never
// replaces another's fact. It names the other project and a free name.
func otherProject(snap index.Snapshot, cur *index.Memory, f Fact) error {
	whose := "a global fact"
	if cur.Project != "" {
		whose = "a fact of project " + cur.Project
	}
	alt := f
	if f.Project != "" {
		alt.Name = f.Name + "-" + f.Project
		if len(alt.Name) > 64 {
			alt.Name = strings.TrimRight(alt.Name[:64], "-")
		}
	}
	alt.Name = freeName(snap, map[string]bool{}, alt)
	return fmt.Errorf("%s %w: it is %s, and a fact names one file in the whole folder; choose another name, such as --name %s", cur.File, ErrExists, whose, alt.Name)
}

// keepHandLines refuses a model's replacement that drops a line a person
// wrote into cur (HandLines).
func (w *Writer) keepHandLines(ctx context.Context, cur *index.Memory, body string) error {
	hand, err := HandLines(ctx, w.opts.Folder.Repo(), cur)
	if err != nil {
		return err
	}
	if gone := Dropped(hand, body); len(gone) > 0 {
		return fmt.Errorf("%s: the replacement %w (%q and %d more); keep them in the body, or save a new fact", cur.File, ErrHandLines, gone[0], len(gone)-1)
	}
	return nil
}

// Forget removes the fact named name (a file name, or the name part of one)
// and commits, saying why. A readonly fact is not forgotten.
//
// A fact git ignores is not in the history, so forgetting it cannot be
// undone: without force it is refused (ErrIgnored), and with force it is
// deleted and Done.Ignored says so.
func (w *Writer) Forget(ctx context.Context, name, reason string, force bool) (Done, error) {
	if strings.TrimSpace(reason) == "" {
		return Done{}, fmt.Errorf("%w: say why it is forgotten", ErrInvalid)
	}
	return w.locked(ctx, func(snap index.Snapshot) (Done, []byte, string, error) {
		m, err := Find(snap, name)
		switch {
		case err != nil:
			return Done{}, nil, "", err
		case m.Readonly:
			return Done{}, nil, "", fmt.Errorf("%s %w (metadata.readonly): memoryd never deletes it", m.File, ErrReadonly)
		case strings.Contains(m.File, "/"):
			return Done{}, nil, "", fmt.Errorf("%s is in a subfolder: remove it by hand", m.File)
		}
		done := Done{File: m.File, Action: "forgot", reason: oneLine(reason)}
		if r := w.opts.Folder.Repo(); r != nil {
			ignored, err := r.Ignored(ctx, []string{m.File})
			if err != nil {
				return Done{}, nil, "", err
			}
			if done.Ignored = ignored[m.File]; done.Ignored && !force {
				return Done{}, nil, "", fmt.Errorf("%s %w (.gitignore), so it is not in the history: forgetting it cannot be undone. Delete it for good with memoryd forget --force, or remove it by hand", m.File, ErrIgnored)
			}
		}
		return done, nil, m.Hash, nil
	})
}

// Replace writes data, a whole file a person edited, over the fact file as
// it was when they started (hash), after the same checks as Save.
func (w *Writer) Replace(ctx context.Context, file string, data []byte, hash string) (Done, error) {
	m, err := index.Parse(file, data)
	if err != nil {
		return Done{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := checkSecrets(string(data)); err != nil {
		return Done{}, err
	}
	return w.locked(ctx, func(snap index.Snapshot) (Done, []byte, string, error) {
		if cur := ByFile(snap, file); cur != nil && cur.Readonly {
			return Done{}, nil, "", fmt.Errorf("%s %w (metadata.readonly): memoryd's commands never change it; open it in your editor", file, ErrReadonly)
		}
		if m.File != file || !index.IsMemory(file) {
			return Done{}, nil, "", fmt.Errorf("%w: %s is not a memory file", ErrInvalid, file)
		}
		refreshed, err := refreshCites(m, w.dir())
		if err != nil {
			return Done{}, nil, "", err
		}
		if m.Updated != w.today() || refreshed {
			m.Updated = w.today()
			data = m.Format()
		}
		return Done{File: file, Action: "edited"}, data, hash, nil
	})
}

// locked runs plan in a transaction (txn): plan returns what to do (data
// nil with a Done means remove), and the version of the file it planned on
// (hash, "" for none). The transaction re-checks that version, writes,
// settles, updates search and commits.
func (w *Writer) locked(ctx context.Context, plan func(index.Snapshot) (Done, []byte, string, error)) (Done, error) {
	tx, err := w.opts.Folder.Begin(ctx, "memoryd "+w.opts.Who)
	if err != nil {
		return Done{}, err
	}
	defer tx.Close()
	done, data, hash, err := plan(tx.Snapshot())
	if err != nil {
		return Done{}, err
	}
	if data == nil {
		err = tx.Remove(done.File, hash)
	} else {
		err = tx.Write(done.File, data, hash)
	}
	if err != nil {
		return Done{}, err
	}
	res, err := tx.Commit(ctx, w.message(done))
	done.Commit = res.Commit
	return done, err
}

// message is the commit message of a fact's change: "memory: add
// user-x.md (cli)", so history says what each command did and undo can
// take it back alone.
func (w *Writer) message(d Done) commitmsg.Message {
	kind := map[string]commitmsg.Kind{"created": commitmsg.KindAdd, "replaced": commitmsg.KindReplace,
		"edited": commitmsg.KindEdit, "forgot": commitmsg.KindForget, "confirmed": commitmsg.KindConfirm}[d.Action]
	m := commitmsg.Message{Subject: fmt.Sprintf("memory: %s %s (%s)", kind, d.File, w.opts.Who), Kind: kind, Writer: w.writer()}
	switch d.Action {
	case "proposed": // ProposeTeam: a new inbox file
		m.Subject, m.Kind = fmt.Sprintf("memory: propose %s for the team memory (%s)", d.File, w.opts.Who), commitmsg.KindAdd
	case "proposed superseding": // ProposeSupersede
		m.Subject, m.Kind = fmt.Sprintf("memory: propose superseding %s (%s)", index.InboxTarget(d.File), w.opts.Who), commitmsg.KindAdd
	}
	if d.reason != "" {
		m.Body = "Reason: " + d.reason
	}
	return m
}
