package extractor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/index"
)

var ctx = context.Background()

const tabsBody = "Use tabs, never spaces, when writing or reformatting code.\nWhy: the user said so while reviewing."

func TestExtractWritesIndexesCommitsAndAdvances(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/home/ana/proj")
	e.db.turn("ses_1", "Please remember that I always want tabs for indentation.", "Noted, tabs from now on.")
	e.llm.set(answerWith(mem("create", "feedback", "prefers-tabs", "Prefers tabs over spaces", tabsBody)))

	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].File != "feedback-prefers-tabs.md" || res.Commit == "" {
		t.Fatalf("result %+v", res)
	}
	got := e.read("feedback-prefers-tabs.md")
	m, err := index.Parse("feedback-prefers-tabs.md", []byte(got))
	if err != nil || m.Name != "prefers-tabs" || m.Description != "Prefers tabs over spaces" || m.Type != "feedback" ||
		strings.TrimSpace(m.Body) != tabsBody || m.Project != "" || m.Updated != time.Now().Format(time.DateOnly) {
		t.Errorf("file: %v\n%s", err, got)
	}
	// Provenance: where the fact came from.
	if len(m.Sources) != 1 || m.Sources[0].Agent != "opencode" || m.Sources[0].Session != "ses_1" ||
		m.Sources[0].Cwd != "/home/ana/proj" || !strings.Contains(m.Sources[0].Messages, "..") || m.Sources[0].At == "" {
		t.Errorf("sources %+v", m.Sources)
	}
	if !strings.Contains(e.read("MEMORY.md"), "- [Prefers tabs](feedback-prefers-tabs.md) — Prefers tabs over spaces\n") {
		t.Errorf("index:\n%s", e.read("MEMORY.md"))
	}
	if s := e.subjects()[0]; s != "memory: extract from opencode session ses_1" {
		t.Errorf("subject %q", s)
	}
	if st := git(t, e.notes, "status", "--porcelain"); st != "" {
		t.Errorf("uncommitted after the pass:\n%s", st)
	}
	reqs := e.llm.calls()
	if len(reqs) != 1 {
		t.Fatalf("%d calls", len(reqs))
	}
	r := reqs[0]
	if r.Task != "extract" || r.Model != "test/model" || !r.JSON {
		t.Errorf("request %+v", r)
	}
	for _, want := range []string{"/home/ana/proj", "[user] Please remember that I always want tabs", "[assistant] Noted, tabs"} {
		if !strings.Contains(r.Prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, r.Prompt)
		}
	}
	if !strings.Contains(r.System, "# Memory write protocol") {
		t.Error("system prompt lacks PROTOCOL.md")
	}
	w, ok, _ := e.x.Watermark("opencode", "ses_1")
	if !ok || w.ID == "" {
		t.Errorf("watermark %+v %v", w, ok)
	}

	// Nothing new: no call at all.
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); !errors.Is(err, ErrNothingToDo) {
		t.Fatalf("second pass: %v", err)
	}
	if n := len(e.llm.calls()); n != 1 {
		t.Fatalf("%d calls after a pass with nothing new", n)
	}

	// A second turn: only it is sent, and the old body is the context.
	e.db.turn("ses_1", "Also: I use fish as my shell.", "Got it.")
	e.llm.set(answerWith())
	res, err = e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil || res.Messages != 2 || res.Sent != 2 || len(res.Changes) != 0 {
		t.Fatalf("third pass %+v %v", res, err)
	}
	p := e.llm.calls()[1].Prompt
	if strings.Contains(p, "always want tabs") || !strings.Contains(p, "fish as my shell") {
		t.Errorf("second prompt:\n%s", p)
	}
	if !strings.Contains(p, `<memory file="feedback-prefers-tabs.md"`) || !strings.Contains(p, "reviewing.") {
		t.Errorf("second prompt lacks the existing body:\n%s", p)
	}
	w2, _, _ := e.x.Watermark("opencode", "ses_1")
	if w2 == w {
		t.Error("watermark did not move after an empty answer")
	}
}

func TestExtractToolCallsAndSummaries(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "List the files please", toolCall("bash", obj{"command": "ls -la", "description": "list"}), "Here they are.")
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); err != nil {
		t.Fatal(err)
	}
	p := e.llm.calls()[0].Prompt
	if !strings.Contains(p, "[tool bash: ls -la]") || strings.Contains(p, "SECRET-TOOL-OUTPUT") {
		t.Errorf("prompt:\n%s", p)
	}
}

func TestExtractNoUserTextNoCall(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "Do not remember this: my PIN hint is blue-42", "I won't keep it.")
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil || res.Withheld != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	if n := len(e.llm.calls()); n != 0 {
		t.Fatalf("%d calls for a turn the user asked not to keep", n)
	}
	if _, ok, _ := e.x.Watermark("opencode", "ses_1"); !ok {
		t.Error("watermark not advanced")
	}
}

func TestExtractRedactsBeforeSending(t *testing.T) {
	e := newEnv(t)
	key := "sk-proj-" + strings.Repeat("Ab3xY9", 8)
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "My OpenAI key is "+key+" and remember I deploy on Fridays only.",
		toolCall("bash", obj{"command": "export OPENAI_API_KEY=" + key}), "OK.")
	e.llm.set(answerWith(
		mem("create", "user", "openai-key", "The user's OpenAI key", "The OpenAI key is "+key+" for the deploy scripts."),
		mem("create", "user", "key-redacted", "Has an OpenAI key", "The user's OpenAI key is [REDACTED], keep it handy."),
		mem("create", "project", "deploy-fridays", "Deploys happen on Fridays only", "Deploy only on Fridays.\nWhy: the user said so.")))
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	p := e.llm.calls()[0].Prompt
	if strings.Contains(p, key) || strings.Contains(p, key[:20]) {
		t.Fatalf("the key reached the model:\n%s", p)
	}
	if res.Redacted < 2 || !strings.Contains(p, "[REDACTED]") {
		t.Errorf("redacted %d:\n%s", res.Redacted, p)
	}
	if len(res.Changes) != 1 || res.Changes[0].File != "project-deploy-fridays.md" {
		t.Errorf("changes %+v rejected %+v", res.Changes, res.Rejected)
	}
	for _, f := range e.files() {
		if strings.Contains(e.read(f), key[:20]) {
			t.Errorf("%s holds the key", f)
		}
	}
}

func TestExtractBoundsKeepNewest(t *testing.T) {
	e := newEnv(t)
	e.db.session("ses_1", "/w")
	for i := range 60 {
		e.db.turn("ses_1", fmt.Sprintf("question number %03d %s", i, strings.Repeat("x", 200)), fmt.Sprintf("answer %03d", i))
	}
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Messages != 120 || res.Sent != 40 {
		t.Errorf("messages %d sent %d", res.Messages, res.Sent)
	}
	p := e.llm.calls()[0].Prompt
	if !strings.Contains(p, "question number 059") || strings.Contains(p, "question number 039 ") || !strings.Contains(p, "answer 059") {
		t.Errorf("prompt does not hold exactly the newest messages")
	}
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); !errors.Is(err, ErrNothingToDo) {
		t.Errorf("after a cut pass: %v (the watermark must be at the newest message)", err)
	}

	// The character bound: big messages, the newest kept.
	e2 := newEnv(t, func(o *Options) { o.MaxTranscript = 5000 })
	e2.db.session("ses_1", "/w")
	for i := range 5 {
		e2.db.turn("ses_1", fmt.Sprintf("big %d %s", i, strings.Repeat("y", 1500)), "ok")
	}
	res, err = e2.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	p = e2.llm.calls()[0].Prompt
	tr := p[strings.Index(p, "<transcript>"):]
	if len(tr) > 5200 || !strings.Contains(tr, "big 4") || strings.Contains(tr, "big 0") || !strings.Contains(tr, "earlier messages not shown") {
		t.Errorf("transcript of %d bytes:\n%.400s", len(tr), tr)
	}
}

func TestExtractContextFallsBackToIndex(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxContext = 2000 })
	for i := range 30 {
		e.write(fmt.Sprintf("user-fact-%02d.md", i), memoryFile("user", fmt.Sprintf("fact-%02d", i),
			fmt.Sprintf("Fact %02d", i), strings.Repeat("filler words here ", 10)))
	}
	e.writeByModel("user-editor.md", memoryFile("user", "editor", "Editor of choice", "Uses helix as the editor everywhere."))
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "I switched my editor from helix to zed.", "Noted.")
	e.llm.set(answerWith(mem("update", "user", "editor", "Editor of choice is zed", "Uses zed as the editor everywhere (was helix).")))
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	p := e.llm.calls()[0].Prompt
	if !strings.Contains(p, `<memory file="user-editor.md"`) || !strings.Contains(p, "- user-fact-") {
		t.Errorf("context should show the related body and index lines for the rest:\n%s", p)
	}
	if len(res.Changes) != 1 || !strings.Contains(e.read("user-editor.md"), "Uses zed") {
		t.Errorf("%+v\n%s", res, e.read("user-editor.md"))
	}
}

func TestExtractBlindUpdateKeepsOldBody(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxContext = 10 })
	e.write("user-editor.md", memoryFile("user", "editor", "Editor of choice", "Uses helix for everything, with vim keys."))
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "For notes I use obsidian.", "Noted.")
	e.llm.set(answerWith(mem("update", "user", "editor", "Editors", "Uses obsidian for notes and writing.")))
	if _, err := e.x.Extract(ctx, "opencode", "ses_1"); err != nil {
		t.Fatal(err)
	}
	got := e.read("user-editor.md")
	if !strings.Contains(got, "Uses helix for everything") || !strings.Contains(got, "Uses obsidian for notes") {
		t.Errorf("blind update lost the old body:\n%s", got)
	}
}

func TestExtractUpdateKeepsUnknownKeysAndRefusesReadonly(t *testing.T) {
	e := newEnv(t)
	e.writeByModel("user-email.md", "---\nname: email\ndescription: Work email\nsource: hand # mine\nmetadata:\n  type: user\n  team: core\n---\nWork email is ana@example.com.\n")
	e.write("user-shell.md", "---\nname: shell\ndescription: Shell\nmetadata:\n  type: user\n  readonly: true\n---\nUses zsh with oh-my-zsh everywhere.\n")
	e.db.session("ses_1", "/w")
	e.db.turn("ses_1", "My work email changed to ana@corp.example, and I use fish now.", "Noted.")
	e.llm.set(answerWith(
		mem("update", "user", "email", "Work email is ana@corp.example", "Work email is ana@corp.example (was ana@example.com)."),
		mem("create", "user", "shell", "Shell is fish", "Uses the fish shell everywhere now.")))
	res, err := e.x.Extract(ctx, "opencode", "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	got := e.read("user-email.md")
	for _, want := range []string{"source: hand # mine", "team: core", "description: Work email is ana@corp.example", "ana@corp.example (was"} {
		if !strings.Contains(got, want) {
			t.Errorf("updated file lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(e.read("user-shell.md"), "zsh") || len(res.Rejected) != 1 || !strings.Contains(res.Rejected[0].Reason, "readonly") {
		t.Errorf("readonly file: rejected %+v\n%s", res.Rejected, e.read("user-shell.md"))
	}
}
