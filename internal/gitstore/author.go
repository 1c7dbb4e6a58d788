package gitstore

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// FallbackAuthor is the identity of memoryd's commits when neither
// Options.Author nor the repository's user.name and user.email are set.
const FallbackAuthor = "memoryd <memoryd@localhost>"

// Author returns the "Name <email>" identity memoryd's commits carry.
func (r *Repo) Author() string { return r.author }

var authorRE = regexp.MustCompile(`^([^<>\x00-\x1f]*[^<>\s])[ \t]*<([^<>\s]+)>$`)

// parseAuthor splits "Name <email>".
func parseAuthor(s string) (name, email string, err error) {
	m := authorRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", "", fmt.Errorf("author %q: want \"Name <email>\"", s)
	}
	return strings.TrimSpace(m[1]), m[2], nil
}

// resolveAuthor picks the commit identity: the override, else the
// repository's effective user.name/user.email (git's own lookup, including
// global and conditional includes), else FallbackAuthor. Git's own identity
// needs no -c flags; the other two are passed with -c on every commit.
func (r *Repo) resolveAuthor(override string) error {
	if override != "" {
		name, email, err := parseAuthor(override)
		if err != nil {
			return fmt.Errorf("open: %w", err)
		}
		r.setIdentity(name, email)
		return nil
	}
	if r.gitErr == nil {
		name, email := r.configIdentity()
		if name != "" && email != "" {
			r.author = name + " <" + email + ">"
			return nil
		}
	}
	name, email, _ := parseAuthor(FallbackAuthor)
	r.setIdentity(name, email)
	return nil
}

func (r *Repo) setIdentity(name, email string) {
	r.identity = []string{"-c", "user.name=" + name, "-c", "user.email=" + email}
	r.author = name + " <" + email + ">"
}

// configIdentity asks git for user.name and user.email as seen from the
// work tree; a missing key yields "".
func (r *Repo) configIdentity() (name, email string) {
	out, err := r.run(context.Background(), nil, "config", "-z", "--get-regexp", `^user\.(name|email)$`)
	if err != nil {
		return "", "" // exit status 1: neither is set
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		key, val, _ := strings.Cut(rec, "\n")
		switch key {
		case "user.name":
			name = strings.TrimSpace(val)
		case "user.email":
			email = strings.TrimSpace(val)
		}
	}
	return name, email
}
