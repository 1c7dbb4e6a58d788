package index

import "strings"

// InboxDir holds the facts that wait for a person's review
// (extract.review): "_inbox/<type>-<name>.md". They are committed like any
// file but listed in no index; MEMORY.md's banner counts them. Moving one
// out of the folder by hand accepts it.
const InboxDir = "_inbox"

// InInbox reports whether rel is a fact waiting for review.
func InInbox(rel string) bool { return strings.HasPrefix(rel, InboxDir+"/") }
