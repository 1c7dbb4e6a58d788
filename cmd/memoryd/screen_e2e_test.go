package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

const screenToken = "ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue"

// heldNames returns status's held reasons, joined, for matching.
func (w *world) heldNames() string { return strings.Join(w.status().Git.Held, "\n") }

// TestScreenIndexNeverHeldOnItsOwn: facts whose descriptions look like
// secrets without being any — a long identifier, a password hint pointing
// to a password manager, a hash that the index's line puts beside the word
// "key", a line the user allowed — are committed, and MEMORY.md with them:
// nothing stays modified to stop the user's next `git pull`. A real secret
// in a fact's description holds the fact; the index's line for it says
// [REDACTED], so the index goes on being committed and the secret never
// reaches the history.
func TestScreenIndexNeverHeldOnItsOwn(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	defer p.stop(t)
	const hash = "3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a"
	w.write("project-retries.md", memoryFile("project", "retries",
		"Retries use backoffWithJitterAndMaxElapsedTime2Seconds in the client", "Keep the jitter."))
	w.write("reference-prod-db.md", memoryFile("reference", "prod-db",
		`"Prod DB password: see the 1Password item Prod DB"`, "Ask the on-call if the item moved."))
	w.write("reference-signing-key.md", memoryFile("reference", "signing-key",
		hash+" is the commit that rotated it", "Rotation happens yearly."))
	w.write("reference-token-format.md", memoryFile("reference", "token-format",
		"What a GitHub token looks like", "For example "+screenToken+" <!-- memoryd:allow-secret -->"))

	waitFor(t, "MEMORY.md and the four facts committed", func() bool {
		idx := w.show("memory/MEMORY.md")
		return strings.Contains(idx, "backoffWithJitterAndMaxElapsedTime2Seconds") && strings.Contains(idx, "1Password item") &&
			strings.Contains(idx, hash) && strings.Contains(idx, "What a GitHub token looks like") &&
			w.show("memory/project-retries.md") != "" && w.show("memory/reference-prod-db.md") != "" &&
			w.show("memory/reference-signing-key.md") != "" && w.show("memory/reference-token-format.md") != ""
	})
	waitFor(t, "a clean work tree", func() bool { return w.git(w.notes, "status", "--porcelain") == "" })
	if h := w.heldNames(); h != "" {
		t.Fatalf("held: %s", h)
	}

	// A real secret in a hand-written description: the fact is held;
	// MEMORY.md, whose line for it says [REDACTED] instead, is not.
	w.write("reference-deploy.md", memoryFile("reference", "deploy", "Deploy with token "+screenToken, "CI deploys."))
	waitFor(t, "status to name the fact", func() bool {
		return strings.Contains(w.heldNames(), "reference-deploy.md:3 holds a secret (GitHub token)")
	})
	waitFor(t, "MEMORY.md with the redacted line committed", func() bool {
		return strings.Contains(w.show("memory/MEMORY.md"), "reference-deploy.md) — Deploy with token [REDACTED]")
	})
	if h := w.heldNames(); strings.Contains(h, "MEMORY.md") {
		t.Errorf("the index is held with the fact: %s", h)
	}
	if log := w.git(w.notes, "log", "-p", "--all"); strings.Count(log, screenToken) != 1 {
		// Once: the allowed example of reference-token-format.md.
		t.Fatalf("the secret reached the history %d times", strings.Count(log, screenToken))
	}
	out, _ := w.runCmd(nil, "status")
	if !strings.Contains(out, "reference-deploy.md:3 holds a secret (GitHub token), so memoryd does not commit the file: remove the secret, or, if it is not one, put memoryd:allow-secret on that line") {
		t.Errorf("status:\n%s", out)
	}
	out, _ = w.runCmd(nil, "doctor")
	if !strings.Contains(out, "PROBLEM  secrets: reference-deploy.md:3 holds a secret (GitHub token)") ||
		strings.Contains(out, "PROBLEM  secrets: MEMORY.md:") || !strings.Contains(out, "rotate it") {
		t.Errorf("doctor:\n%s", out)
	}

	w.write("reference-deploy.md", memoryFile("reference", "deploy", `"Deploy token: see the 1Password item CI"`, "CI deploys."))
	waitFor(t, "the fixed fact and MEMORY.md committed", func() bool {
		return w.show("memory/reference-deploy.md") != "" && strings.Contains(w.show("memory/MEMORY.md"), "Deploy token: see the 1Password item CI")
	})
	waitFor(t, "nothing held", func() bool { return w.heldNames() == "" })
	if log := w.git(w.notes, "log", "-p", "--all"); strings.Count(log, screenToken) != 1 {
		t.Fatalf("the secret reached the history")
	}
}

// TestForgetReasonSecretRedacted: the reason given to `memoryd forget` goes
// into the commit message through the same screen as the files: a secret in
// it never reaches git.
func TestForgetReasonSecretRedacted(t *testing.T) {
	w := newWorld(t)
	if out, code := w.runCmd(nil, "add", "--type", "reference", "--name", "deploy", "--description", "How deploys run", "CI deploys on every tag."); code != 0 {
		t.Fatalf("add: %d\n%s", code, out)
	}
	out, code := w.runCmd(nil, "forget", "deploy", "--reason", "it used to say the token was "+screenToken)
	if log := w.git(w.notes, "log", "--all", "--format=%B"); strings.Contains(log, "ghp_Zq8Lm3") {
		t.Fatalf("the secret reached a commit message:\n%s", log)
	}
	if code != 0 || w.show("memory/reference-deploy.md") != "" {
		t.Fatalf("forget: %d\n%s", code, out)
	}
	if msg := w.git(w.notes, "log", "-1", "--format=%B"); !strings.Contains(msg, "[REDACTED]") {
		t.Errorf("the forget commit does not say what was removed:\n%s", msg)
	}
}

// TestScreenReadsEveryFile: a hand-written file over 256 KiB (too large for
// an index, not for git) and a UTF-16 file are screened like any other:
// with a secret they are held, with the line; a clean large file is
// committed; a file too large to screen at all is held and says so.
func TestScreenReadsEveryFile(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	defer p.stop(t)

	var big strings.Builder
	lines := 0
	for big.Len() < 300<<10 {
		lines++
		big.WriteString("Notes from the long planning meeting, kept as they were typed.\n")
	}
	clean := big.String()
	big.WriteString("Token: " + screenToken + "\n")
	w.write("reference-big.md", big.String())
	w.write("reference-clean-big.md", clean)

	u := utf16.Encode([]rune("---\r\nname: wifi\r\n---\r\nOffice wifi, and the CI token " + screenToken + "\r\n"))
	b := []byte{0xff, 0xfe}
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	w.write("reference-utf16.md", string(b))
	huge := make([]byte, 9<<20)
	for i := range huge {
		huge[i] = "plain text\n"[i%11]
	}
	if err := os.WriteFile(filepath.Join(w.mem, "reference-huge.md"), huge, 0o644); err != nil {
		t.Fatal(err)
	}
	w.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "Uses vim for everything."))

	waitFor(t, "the clean files committed", func() bool {
		return w.show("memory/user-editor.md") != "" && w.show("memory/reference-clean-big.md") == clean
	})
	waitFor(t, "status to name the held files", func() bool {
		h := w.heldNames()
		return strings.Contains(h, "reference-big.md:"+strconv.Itoa(lines+1)+" holds a secret (GitHub token)") &&
			strings.Contains(h, "reference-utf16.md:4 holds a secret (GitHub token)") &&
			strings.Contains(h, "reference-huge.md cannot be screened for secrets (it is larger than 8 MiB)")
	})
	if files := w.git(w.notes, "ls-files", "memory"); strings.Contains(files, "reference-big.md") ||
		strings.Contains(files, "reference-utf16.md") || strings.Contains(files, "reference-huge.md") {
		t.Fatalf("committed:\n%s", files)
	}
	for _, args := range [][]string{{"log", "--all", "-p", "--text"}, {"log", "--all", "--format=%B"}} {
		if strings.Contains(w.git(w.notes, args...), "ghp_Zq8Lm3") {
			t.Fatalf("git %v shows the secret", args)
		}
	}
	out, _ := w.runCmd(nil, "doctor")
	if !strings.Contains(out, "PROBLEM  secrets: reference-utf16.md:4 holds a secret (GitHub token)") ||
		!strings.Contains(out, "PROBLEM  secrets: reference-huge.md cannot be screened") {
		t.Errorf("doctor:\n%s", out)
	}
}
