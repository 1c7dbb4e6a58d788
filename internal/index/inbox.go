package index

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// InboxDir holds the facts that wait for a person's review
// (extract.review, sync's conflicts): "_inbox/<file>", where <file> is the
// fact the proposal is over, relative to the memory folder
// ("_inbox/projects/x/fact.md" proposes projects/x/fact.md). A second
// proposal over one fact is "_inbox/<file without .md>.mine-<n>.md". They
// are committed like any file but listed in no index; MEMORY.md's banner
// counts them. Moving one out of the folder by hand accepts it.
const InboxDir = "_inbox"

// InInbox reports whether rel is a fact waiting for review.
func InInbox(rel string) bool { return strings.HasPrefix(rel, InboxDir+"/") }

// mineSuffix is what tells a second proposal over one fact apart.
var mineSuffix = regexp.MustCompile(`\.mine-[0-9]+\.md$`)

// InboxTarget is the fact the inbox file rel proposes a version of,
// relative to the memory folder: its path under InboxDir, subfolders kept,
// without a ".mine-<n>" suffix.
func InboxTarget(rel string) string {
	t := strings.TrimPrefix(path.Clean(rel), InboxDir+"/")
	if loc := mineSuffix.FindStringIndex(t); loc != nil {
		t = t[:loc[0]] + ".md"
	}
	return t
}

// InboxFile is the n-th inbox file proposing a version of the fact rel
// (n ≤ 1 the first): InboxTarget's inverse.
func InboxFile(rel string, n int) string {
	if n <= 1 {
		return InboxDir + "/" + rel
	}
	return InboxDir + "/" + strings.TrimSuffix(rel, ".md") + ".mine-" + strconv.Itoa(n) + ".md"
}
