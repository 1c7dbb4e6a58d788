package folder

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/secrets"
)

// secretScreen keeps a file that holds a secret out of every commit: the
// last line of defence for hand-written files, which no quality gate saw.
// The answer names the file, the line and how to let it in.
//
// Only what a person or a model wrote is screened. The files memoryd
// generates — the indexes MEMORY.md and MEMORY.<slug>.md, PROTOCOL.md,
// .gitattributes — are built from the facts and are never held on their
// own: a false positive in an index would keep the index out of every
// commit, and its uncommitted change would stop the user's next `git pull`.
// An index is held only while it repeats the very secret of a fact the
// screen holds (a secret in a hand-written description), and then for as
// long as that fact is. A file that cannot be screened — too large, not a
// regular file, unreadable — is held too: the screen fails closed.
func secretScreen(dir string) func(rel string) string {
	return func(rel string) string {
		if Generated(dir, rel) {
			// Not a person's MEMORY.notes.md, which is screened like any
			// file they wrote.
			return screenIndex(dir, rel)
		}
		return screenRead(dir, rel).reason(rel)
	}
}

// maxScreened is the largest file the screen reads. A memory file is at most
// index.MaxFileSize (256 KiB) to be indexed, but git commits any size, so
// the screen reads far beyond that; a file larger still is held, unread.
const maxScreened = 8 << 20

// screened is what the screen made of one file: its text and the secrets in
// it (secrets.ScreenFile), or why it could not read it (cannot, with fix
// saying what to do).
type screened struct {
	text        string
	found       []secrets.Finding
	cannot, fix string
}

// screenRead reads dir/rel as git would commit it — a symbolic link as its
// target's name, a regular file as its bytes, in any encoding (see
// secrets.ScreenFile) — and finds the secrets in it. A file gone from disk
// (a deletion) has nothing to screen.
func screenRead(dir, rel string) screened {
	data, err := readScreened(filepath.Join(dir, filepath.FromSlash(rel)))
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return screened{}
	case errors.Is(err, errTooLarge):
		return screened{cannot: fmt.Sprintf("it is larger than %d MiB", maxScreened>>20),
			fix: "split it into smaller files, or move it out of the memory folder"}
	case errors.Is(err, errNotRegular):
		return screened{cannot: "it is not a regular file", fix: "replace it with a regular file, or remove it"}
	case err != nil:
		return screened{cannot: err.Error(), fix: "make it readable"}
	}
	s := screened{text: secrets.FileText(data)}
	s.found = secrets.Screen(s.text)
	return s
}

// reason is the screen's answer for rel: "" when it may be committed, else
// what keeps it out and the way to let it in (for status and doctor).
func (s screened) reason(rel string) string {
	switch {
	case s.cannot != "":
		return fmt.Sprintf("%s cannot be screened for secrets (%s), so memoryd does not commit it: %s", rel, s.cannot, s.fix)
	case len(s.found) > 0:
		return heldReason(rel, s.found[0])
	}
	return ""
}

// heldReason says that rel holds a secret at f, and both ways out.
func heldReason(rel string, f secrets.Finding) string {
	return fmt.Sprintf("%s:%d holds a secret (%s), so memoryd does not commit the file: remove the secret, "+
		"or, if it is not one, put %s on that line (<!-- %s --> in the text, # %s in the frontmatter)",
		rel, f.Line, f.Kind, secrets.AllowMarker, secrets.AllowMarker, secrets.AllowMarker)
}

var (
	errTooLarge   = errors.New("too large to screen")
	errNotRegular = errors.New("not a regular file")
)

// readScreened returns what git would commit of the file at p.
func readScreened(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		return []byte(target), err
	case !fi.Mode().IsRegular():
		return nil, errNotRegular
	case fi.Size() > maxScreened:
		return nil, errTooLarge
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxScreened+1))
	if err == nil && len(data) > maxScreened {
		err = errTooLarge // it grew since the Lstat
	}
	return data, err
}

// screenIndex holds the generated file rel (an index, PROTOCOL.md,
// .gitattributes) only while it repeats the secret
// of a fact the screen holds: a line of an index that the detector flags is
// looked up in the fact it links ("- [Title](file.md) — description"), and
// only when that fact is held for the same text is the index held with it.
// Anything else the detector sees in an index — memoryd's own words, a fact
// whose line was allowed — lets the index in.
func screenIndex(dir, rel string) string {
	data, err := readScreened(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	text := secrets.FileText(data)
	for _, f := range secrets.Screen(text) {
		start := strings.LastIndexByte(text[:f.Start], '\n') + 1
		end := strings.IndexByte(text[f.Start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += f.Start
		}
		secret := text[f.Start:f.End]
		for _, fact := range linkedFiles(text[start:end]) {
			s := screenRead(dir, fact)
			for _, g := range s.found {
				if theirs := s.text[g.Start:g.End]; strings.Contains(theirs, secret) || strings.Contains(secret, theirs) {
					return fmt.Sprintf("%s:%d repeats the secret that keeps %s out of commits (%s), so it waits with it: "+
						"fix %s:%d (remove the secret, or put %s on that line if it is not one)",
						rel, f.Line, fact, g.Kind, fact, g.Line, secrets.AllowMarker)
				}
			}
		}
	}
	return ""
}

// linkedFiles returns the memory files a line of an index links to.
func linkedFiles(line string) []string {
	var files []string
	for {
		i := strings.Index(line, "](")
		if i < 0 {
			return files
		}
		line = line[i+2:]
		j := strings.IndexByte(line, ')')
		if j < 0 {
			return files
		}
		if target := line[:j]; index.IsMemory(target) {
			files = append(files, target)
		}
		line = line[j+1:]
	}
}
