package main

import (
	"strings"
	"testing"
)

// TestHandWrittenSecretNeverCommitted: a file typed by hand with an API
// key in it is kept out of the daemon's commits (the rest go in), and
// status and doctor name the file and the line.
func TestHandWrittenSecretNeverCommitted(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	defer p.stop(t)
	w.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "Uses vim for everything."))
	w.write("reference-deploy.md", memoryFile("reference", "deploy", "Deploy notes",
		"Deploys go through CI.\nToken: ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue"))
	waitFor(t, "the commit of the other file", func() bool { return w.show("memory/user-editor.md") != "" })
	waitFor(t, "status to name the held file", func() bool {
		for _, h := range w.status().Git.Held {
			if strings.Contains(h, "reference-deploy.md:8 holds a secret (GitHub token)") {
				return true
			}
		}
		return false
	})
	if w.show("memory/reference-deploy.md") != "" {
		t.Fatal("the file with the secret was committed")
	}
	if log := w.git(w.notes, "log", "-p", "--all"); strings.Contains(log, "ghp_Zq8Lm3") {
		t.Fatal("the secret reached the history")
	}
	out, _ := w.runCmd(nil, "status")
	if !strings.Contains(out, "reference-deploy.md:8 holds a secret (GitHub token)") {
		t.Errorf("status:\n%s", out)
	}
	out, _ = w.runCmd(nil, "doctor")
	if !strings.Contains(out, "PROBLEM  secrets: reference-deploy.md:8 holds a secret (GitHub token)") {
		t.Errorf("doctor:\n%s", out)
	}
	// Once the secret is removed, the file is committed.
	w.write("reference-deploy.md", memoryFile("reference", "deploy", "Deploy notes", "Deploys go through CI; the token is in the team vault."))
	waitFor(t, "the cleaned file's commit", func() bool { return w.show("memory/reference-deploy.md") != "" })
}

// TestSecretInDescriptionHoldsOnlyTheFact: a fact whose description holds
// a secret is held out of commits, and its line in MEMORY.md says
// [REDACTED] instead, so the index goes on being committed with the facts
// added after it.
func TestSecretInDescriptionHoldsOnlyTheFact(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	defer p.stop(t)
	w.write("reference-deploy.md", memoryFile("reference", "deploy", "Deploy with ghp_Zq8Lm3Tx7Kw2Np5Rv9Ys4Bd6Hf1Jc0Ga2Ue", "Deploys go through CI."))
	waitFor(t, "status to name the held file", func() bool {
		for _, h := range w.status().Git.Held {
			if strings.Contains(h, "reference-deploy.md") {
				return true
			}
		}
		return false
	})
	w.write("user-editor.md", memoryFile("user", "editor", "Uses vim", "Uses vim for everything."))
	waitFor(t, "MEMORY.md with the later fact to be committed", func() bool {
		return strings.Contains(w.show("memory/MEMORY.md"), "user-editor.md")
	})
	index := w.show("memory/MEMORY.md")
	if !strings.Contains(index, "reference-deploy.md) — Deploy with [REDACTED]") {
		t.Errorf("the held fact's line in the committed MEMORY.md:\n%s", index)
	}
	if log := w.git(w.notes, "log", "-p", "--all"); strings.Contains(log, "ghp_Zq8Lm3") {
		t.Fatal("the secret reached the history")
	}
	if w.show("memory/reference-deploy.md") != "" {
		t.Fatal("the file with the secret was committed")
	}
}

// TestLocalSecretFormsNeverCommitted: passwords labelled in other languages,
// a .pgpass line, an otpauth URI and a session cookie are held out of the
// daemon's commits like an API key, while a note that only talks about a
// Passwort is committed.
func TestLocalSecretFormsNeverCommitted(t *testing.T) {
	w := newWorld(t)
	p := w.startDaemon()
	defer p.stop(t)
	forms := map[string]string{
		"passwort":   "DB Passwort: Xk9mR2qLw7",
		"motdepasse": "mot de passe : Xk9mR2qLw7",
		"contrasena": "contraseña: Xk9mR2qLw7",
		"parol":      "пароль: Xk9mR2qLw7",
		"mima":       "密码：Xk9mR2qLw7",
		"pgpass":     "db.example.com:5432:app:app_user:Xk9mR2qLw7",
		"otp":        "otpauth://totp/Acme:ana?issuer=Acme&secret=JBSWY3DP",
		"cookie":     "Cookie: session=8f3kd93kdmxq0s9dkeiw0",
	}
	for name, text := range forms {
		w.write("reference-"+name+".md", memoryFile("reference", name, "Staging access", "Staging notes.\n"+text))
	}
	w.write("user-policy.md", memoryFile("user", "policy", "Password policy", "Change your Passwort every 90 days; the password field is in config.yaml."))
	waitFor(t, "the ordinary note's commit", func() bool { return w.show("memory/user-policy.md") != "" })
	waitFor(t, "status to name every held file", func() bool {
		held := strings.Join(w.status().Git.Held, "\n")
		for name := range forms {
			if !strings.Contains(held, "reference-"+name+".md:") {
				return false
			}
		}
		return true
	})
	for name := range forms {
		if w.show("memory/reference-"+name+".md") != "" {
			t.Errorf("reference-%s.md was committed", name)
		}
	}
	if log := w.git(w.notes, "log", "-p", "--all"); strings.Contains(log, "Xk9mR2qLw7") || strings.Contains(log, "JBSWY3DP") || strings.Contains(log, "8f3kd93k") {
		t.Fatal("a secret reached the history")
	}
}
