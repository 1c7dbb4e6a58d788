package extractor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/secrets"
	"github.com/memoryd/memoryd/internal/transcript"
)

// Made-up credentials in the shapes the real ones have.
var (
	openAIKey    = "sk-proj-" + strings.Repeat("Zq8wR2", 7)
	anthropicKey = "sk-ant-api03-" + strings.Repeat("hT5kL0p", 6)
	githubToken  = "ghp_" + strings.Repeat("aB3dE", 8)
	githubPAT    = "github_pat_11AAAAAAA0" + strings.Repeat("xY7", 12)
	awsKeyID     = "AKIAIOSFODNN7EXAMPLE"
	awsSecret    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	slackToken   = "xoxb-1234567890-0987654321-" + strings.Repeat("Ab1", 8)
	jwt          = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFuYSJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	privateKey   = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\nc2gtZWQyNTUxOQAAACDx\n-----END OPENSSH PRIVATE KEY-----"
)

func TestRedactSecrets(t *testing.T) {
	cases := []struct{ name, text, secret string }{
		{"OpenAI", "export OPENAI_API_KEY=" + openAIKey, openAIKey},
		{"OpenAI in prose", "my key is " + openAIKey + ", keep it safe", openAIKey},
		{"Anthropic", "use " + anthropicKey + " for claude", anthropicKey},
		{"GitHub", "token " + githubToken, githubToken},
		{"GitHub PAT", "GH_TOKEN=" + githubPAT, githubPAT},
		{"AWS key id", "aws_access_key_id = " + awsKeyID, awsKeyID},
		{"AWS secret", "aws_secret_access_key = " + awsSecret, awsSecret},
		{"AWS secret alone", "the secret part is " + awsSecret + " ok", awsSecret},
		{"Slack", "bot token " + slackToken, slackToken},
		{"Slack webhook", "post to https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX", "hooks.slack.com/services/T000"},
		{"JWT", "Authorization: Bearer " + jwt, jwt},
		{"bearer", "curl -H 'Authorization: Bearer abcdef0123456789abcdef0123'", "abcdef0123456789abcdef0123"},
		{"private key", "here:\n" + privateKey + "\nthanks", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"},
		{"truncated private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234", "MIIEpAIBAAKCAQEA1234"},
		{"password=", "db password=hunter2 on staging", "hunter2"},
		{"password: quoted", `password: "correct horse battery"`, "correct horse battery"},
		{"password is", "my password is Tr0ub4dor&3", "Tr0ub4dor&3"},
		{"PGPASSWORD", "PGPASSWORD=s3cr3t-value psql", "s3cr3t-value"},
		{"client secret", "client_secret: 9f8e7d6c5b4a39281706", "9f8e7d6c5b4a39281706"},
		{"URL password", "postgres://app:Sup3rS3cret@db.internal:5432/app", "Sup3rS3cret"},
		{"Stripe", "sk_live_" + strings.Repeat("a1B2", 6), "sk_live_"},
		{"Google", "AIza" + strings.Repeat("Sy0-x_", 5) + "abcde", "AIzaSy0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, n := secrets.Redact(c.text)
			if n == 0 || strings.Contains(got, c.secret) || !strings.Contains(got, secrets.Redacted) {
				t.Errorf("secrets.Redact(%q) = %q, %d", c.text, got, n)
			}
			if !secrets.HasSecret(c.text) || !secrets.HasSecret(got) {
				t.Errorf("HasSecret misses %q or its redaction", c.text)
			}
		})
	}
}

func TestRedactLeavesProseAlone(t *testing.T) {
	for _, text := range []string{
		"The secret is to keep functions short.",
		"the password is wrong, try again later",
		"Reset your password at https://accounts.example.com/reset.",
		"Set max_tokens=4000 for long answers.",
		"tokens: 1200 input, 300 output",
		"password: ${DB_PASSWORD} comes from the environment",
		"Commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed it", // a hash, not a secret (the gate rejects it apart)
		"Uses internal/services/AuthHandlerTest for the mocks",
		"The API key lives in 1Password under 'OpenAI'.",
		"Prefers PostgreSQL 16 with the pgvector extension.",
		"The user's email is ana@example.com.",
	} {
		if got, n := secrets.Redact(text); n != 0 {
			t.Errorf("secrets.Redact(%q) = %q", text, got)
		}
	}
}

func TestRejectText(t *testing.T) {
	cases := []struct {
		name, body, want string // want: a word of the reason, "" to pass
	}{
		{"good feedback", "Use tabs, never spaces, when writing code.\nWhy: said so in review.", ""},
		{"good reference", "Staging dashboard: https://grafana.example.com/d/staging-overview (SSO login).", ""},
		{"good with one path", "Deploy settings live in infra/prod.yaml; always edit them through the admin UI.", ""},
		{"good Chinese", "用户喜欢用制表符缩进，而不是空格。", ""},
		{"OpenAI key", "Use the key " + openAIKey + " for scripts.", "secret"},
		{"Anthropic key", "Claude key " + anthropicKey + " for the bot.", "secret"},
		{"GitHub token", "CI uses " + githubToken + " to push tags.", "secret"},
		{"AWS", "AWS key id " + awsKeyID + " in the deploy account.", "secret"},
		{"Slack", "The bot posts with " + slackToken + " to #ops.", "secret"},
		{"JWT", "Test with the token " + jwt + " against staging.", "secret"},
		{"private key", "Deploy key:\n" + privateKey, "secret"},
		{"password", "The staging database password=hunter2 for the app user.", "secret"},
		{"redacted mark", "The OpenAI key is [REDACTED]; ask before using it.", "secret"},
		{"Python traceback", "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'x'", "error"},
		{"Go panic", "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:9 +0x1d", "error"},
		{"JS stack", "Something broke\n    at Object.<anonymous> (/app/index.js:10:15)\n    at Module._compile (node:internal/modules/cjs/loader:1105:14)", "error"},
		{"Java exception", "java.lang.NullPointerException: name is null\n\tat com.acme.App.run(App.java:42)", "error"},
		{"raw error line", "error: failed to push some refs to 'origin' because the remote moved", "error"},
		{"TypeError", "TypeError: Cannot read properties of undefined (reading 'map') in the list view", "error"},
		{"full hash", "The fix landed in 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 on main.", "commit"},
		{"short hash", "The regression started at commit 3f2a9c1 on the release branch.", "commit"},
		{"paths", "Files: src/app/main.go, src/app/util.go, internal/db/conn.go and cmd/tool/run.go.", "paths"},
		{"one path, little else", "See ~/work/acme/docs/setup.md", "paths"},
		{"short", "Uses vim.", "short"},
		{"short Chinese", "用vim。", "short"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := rejectText(c.body, c.body)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("rejectText(%q) = %q, want %q", c.body, got, c.want)
			}
		})
	}
}

func TestAsksNotToRemember(t *testing.T) {
	yes := []string{
		"Don't remember this, but my PIN hint is blue",
		"do not save that to memory",
		"Please don’t remember any of this",
		"forget what I just said about the budget",
		"Forget it, this is off the record",
		"no need to remember my old address",
		"I'd rather you not to remember my address", // clumsy, still a request
		"这个不要记下来",
		"别记这个",
	}
	no := []string{
		"Don't forget: tabs, always.",
		"remember that I prefer tabs",
		"never forget to run the linter",
		"please save the file before running",
		"Do not forget it.",
	}
	for _, s := range yes {
		if !asksNotToRemember(s) {
			t.Errorf("asksNotToRemember(%q) = false", s)
		}
	}
	for _, s := range no {
		if asksNotToRemember(s) {
			t.Errorf("asksNotToRemember(%q) = true", s)
		}
	}
}

func TestSafeName(t *testing.T) {
	cases := []struct{ name, typ, desc, body, want string }{
		{"prefers-tabs", "feedback", "", "", "prefers-tabs"},
		{"Prefers Tabs!", "feedback", "", "", "prefers-tabs"},
		{"feedback-prefers-tabs.md", "feedback", "", "", "prefers-tabs"},
		{"../../etc/passwd", "user", "", "", "etc-passwd"},
		{"a__b--c", "user", "", "", "a-b-c"},
		{strings.Repeat("word-", 20), "user", "", "", strings.TrimSuffix(strings.Repeat("word-", 12), "-") + "-word"[:0]},
		{"喜欢制表符", "feedback", "Prefers tabs over spaces", "", "prefers-tabs-over-spaces"},
		{"", "user", "", "用户喜欢制表符", ""}, // stable hash name, checked below
	}
	for _, c := range cases {
		got := safeName(c.name, c.typ, c.desc, c.body)
		if !index.ValidName(got) {
			t.Errorf("safeName(%q) = %q: not a valid name", c.name, got)
		}
		if c.want != "" && got != c.want {
			t.Errorf("safeName(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	a, b := safeName("", "user", "", "用户喜欢制表符"), safeName("", "user", "", "用户喜欢制表符。")
	if a != b || !strings.HasPrefix(a, "note-") {
		t.Errorf("hash names %q %q: want one stable name", a, b)
	}
}

func TestParseAnswer(t *testing.T) {
	one := `{"action":"create","type":"user","name":"x","description":"d","body":"b"}`
	cases := []struct {
		text string
		n    int
		bad  bool
	}{
		{`{"memories": [` + one + `]}`, 1, false},
		{`[` + one + `,` + one + `]`, 2, false},
		{"```json\n{\"memories\": [" + one + "]}\n```", 1, false},
		{"Here is the result:\n```\n[" + one + "]\n```\nDone.", 1, false},
		{"Sure. {\"memories\": []} Hope that helps.", 0, false},
		{`{"memories": null}`, 0, false},
		{`{"items": [` + one + `]}`, 1, false},
		{one, 1, false},
		{"", 0, false},
		{"I found nothing worth keeping.", 0, true},
		{`{"memories": [`, 0, true},
		{`{"memories": "none"}`, 0, true},
	}
	for _, c := range cases {
		got, err := ParseAnswer(c.text)
		if (err != nil) != c.bad || len(got) != c.n {
			t.Errorf("ParseAnswer(%q) = %d proposals, %v", c.text, len(got), err)
		}
	}
	got, _ := ParseAnswer(`[{"action":"update","type":"user","name":"x","body":42,"file":"user-x.md"}]`)
	if got[0].Body != "" || got[0].File != "user-x.md" || got[0].Action != "update" {
		t.Errorf("lenient read: %+v", got[0])
	}
}

func parsed(t *testing.T, file, content string) *index.Memory {
	t.Helper()
	m, err := index.Parse(file, []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPlanDedupeReadonlyNames(t *testing.T) {
	snap := index.Snapshot{
		Memories: []*index.Memory{
			parsed(t, "feedback-prefers-tabs.md", memoryFile("feedback", "prefers-tabs", "Prefers tabs over spaces", tabsBody)),
			parsed(t, "user-shell.md", "---\nname: shell\ndescription: Shell\nmetadata:\n  type: user\n  readonly: true\n---\nUses zsh with oh-my-zsh everywhere.\n"),
			parsed(t, "user-editor.md", memoryFile("user", "editor", "Editor of choice", "Uses helix as the editor for all code and notes, with vim keys.")),
		},
		Unreadable: []index.Unreadable{{File: "user-broken.md"}},
	}
	shown := map[string]bool{"feedback-prefers-tabs.md": true, "user-shell.md": true, "user-editor.md": true}
	props := []Proposal{
		{Type: "feedback", Name: "tabs", Description: "Tabs please", Body: "use TABS, never spaces - when writing or reformatting code!\nWhy: the user said so while reviewing"}, // canonical duplicate
		{Type: "user", Name: "editor-again", Description: "Editor of choice", Body: "Edits code in helix, for everything and all notes."},                                        // same description
		{Type: "user", Name: "helix", Description: "Helix", Body: "Uses helix as the editor for all code and notes"},                                                             // held by a longer body
		{Action: "update", Type: "user", Name: "shell", Description: "Shell is fish", Body: "Uses the fish shell everywhere now."},                                               // readonly
		{Action: "create", Type: "user", Name: "shell", Description: "Shell is fish", Body: "Uses the fish shell everywhere now."},                                               // readonly via create
		{Type: "user", Name: "broken", Description: "x", Body: "Something long enough to be a fact here."},                                                                       // unreadable target
		{Type: "opinion", Name: "x", Description: "x", Body: "Something long enough to be a fact here."},                                                                         // bad type
		{Action: "delete", Type: "user", Name: "x", Body: "Something long enough to be a fact here."},                                                                            // bad action
		{Type: "User", Name: "../../Work Email!", Description: "Work email", Body: "Work email is ana@example.com for all commits."},                                             // made safe
		{Type: "user", Name: "work-email-2", Description: "Work mail", Body: "Work email is ana@example.com, for all commits!"},                                                  // duplicate within the answer
		{Action: "create", Type: "user", Name: "editor", Description: "Editor of choice is zed", Body: "Uses zed as the editor for all code and notes."},                         // create of an existing file: update
		{Action: "update", Type: "feedback", Name: "prefers-tabs", Description: "Prefers tabs over spaces", Body: tabsBody},                                                      // no change
	}
	changes, rejected := plan(props, snap, shown)
	var files []string
	for _, c := range changes {
		files = append(files, c.Action+" "+c.File)
	}
	want := []string{"create user-work-email.md", "update user-editor.md"}
	if strings.Join(files, ",") != strings.Join(want, ",") {
		t.Errorf("changes %v, want %v", files, want)
	}
	reasons := make([]string, len(rejected))
	for i, r := range rejected {
		reasons[i] = r.Reason
	}
	wantReasons := []string{
		"duplicate of feedback-prefers-tabs.md", "duplicate of user-editor.md", "duplicate of user-editor.md",
		"user-shell.md is readonly", "user-shell.md is readonly", "user-broken.md exists but could not be read",
		"unknown type opinion", "unknown action delete", "duplicate of user-work-email.md",
		"no change to feedback-prefers-tabs.md",
	}
	if strings.Join(reasons, "\n") != strings.Join(wantReasons, "\n") {
		t.Errorf("reasons:\n%s\nwant:\n%s", strings.Join(reasons, "\n"), strings.Join(wantReasons, "\n"))
	}
}

func TestRenderTranscript(t *testing.T) {
	msgs := []transcript.Message{
		{Role: "assistant", Summary: true, Text: "Earlier: the user set up the repo."},
		{Role: "user", Text: "Keep this off the record: salary is 100k"},
		{Role: "assistant", Text: "Understood, 100k stays private.", Tools: []transcript.ToolUse{{Name: "bash", Input: "echo 100k"}}},
		{Role: "user", Text: "Now, I prefer small commits."},
		{Role: "assistant", Text: "Will do.", Tools: []transcript.ToolUse{{Name: "read", Input: "/src/a.go"}}},
	}
	r := renderTranscript(msgs, 10000)
	if strings.Contains(r.text, "100k") || r.withheld != 2 || r.userShown != 1 || r.shown != 5 {
		t.Errorf("%+v", r)
	}
	for _, want := range []string{"[summary of earlier turns, context only] Earlier", "[user] Now, I prefer small commits.", "[assistant] Will do.\n[tool read: /src/a.go]"} {
		if !strings.Contains(r.text, want) {
			t.Errorf("lacks %q:\n%s", want, r.text)
		}
	}
	long := []transcript.Message{{Role: "user", Text: strings.Repeat("a", 50000)}}
	if r := renderTranscript(long, 3000); len(r.text) > 3000 || r.shown != 1 || !strings.Contains(r.text, "…") {
		t.Errorf("long message: %d bytes, %d shown", len(r.text), r.shown)
	}
}

// BenchmarkRenderTranscript is the cost of preparing one full pass's
// transcript: 40 messages, 24,000 characters, redaction and withholding.
func BenchmarkRenderTranscript(b *testing.B) {
	var msgs []transcript.Message
	for range 20 {
		msgs = append(msgs,
			transcript.Message{Role: "user", Text: strings.Repeat("please refactor the parser so that it handles quoted fields ", 8) + "token=" + openAIKey},
			transcript.Message{Role: "assistant", Text: strings.Repeat("I changed parse.go to handle the quotes and ran the tests again. ", 8),
				Tools: []transcript.ToolUse{{Name: "bash", Input: "go test ./..."}, {Name: "read", Input: "/src/parse.go"}}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := renderTranscript(msgs, DefaultMaxTranscript); r.redacted == 0 {
			b.Fatal("nothing redacted")
		}
	}
}

// BenchmarkPlan is the cost of gating ten proposals against 200 memories.
func BenchmarkPlan(b *testing.B) {
	var snap index.Snapshot
	for i := range 200 {
		m, _ := index.Parse(fmt.Sprintf("user-fact-%03d.md", i), []byte(memoryFile("user", fmt.Sprintf("fact-%03d", i),
			fmt.Sprintf("Fact number %d about the user", i), strings.Repeat(fmt.Sprintf("detail %d of a fact worth keeping. ", i), 6))))
		snap.Memories = append(snap.Memories, m)
	}
	var props []Proposal
	for i := range 10 {
		props = append(props, Proposal{Type: "feedback", Name: fmt.Sprintf("new-%d", i), Description: fmt.Sprintf("New fact %d", i),
			Body: fmt.Sprintf("Prefer small focused commits with clear messages, rule %d.\nWhy: the user reviews each one.", i)})
	}
	b.ReportAllocs()
	for b.Loop() {
		if c, _ := plan(props, snap, nil); len(c) != 10 {
			b.Fatalf("%d changes", len(c))
		}
	}
}
