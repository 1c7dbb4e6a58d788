package transcript

import (
	"slices"
	"testing"
	"time"
)

// TestOpenCodeRealSessions lists the sessions a real OpenCode 1.18.33 wrote (testdata/opencode-1.18.33-*.sql).
func TestOpenCodeRealSessions(t *testing.T) {
	f := realRowsDB(t)
	s := openSource(t, f.path, Options{})

	ss := changed(t, s, time.Time{})
	wantLines(t, sessionIDs(ss), []string{
		"ses_e038383ceffe4i46aW8C4MBCm2", // plain reply
		"ses_e03833000ffejX3rkZHIBexAd8", // bash tool, then continued
		"ses_e0383137dffeerVhKQ5Fiv3rws", // HTTP 500: the session row was not touched by the error
		"ses_e0381f5ceffei06rppy24q9rUb", // task tool (its sub-agent session is left out)
		"ses_e0381dd89ffeiDGMs7J5NjiZMF", // attached file
		"ses_e0377b91effepU6yq0LJfaiMIe", // compaction
		"ses_e03638538ffeCES7N4ul1Ee0Yi", // write tool; the user message carries the diff
	})
	for _, sess := range ss {
		if !sess.Finished {
			t.Errorf("%s: not Finished", sess.ID)
		}
		if sess.Dir != "/tmp/transcript-explore/proj" || sess.Source != "opencode" {
			t.Errorf("%s: dir %q source %q", sess.ID, sess.Dir, sess.Source)
		}
	}
	if got := ss[2].Updated.UnixMilli(); got != 1795237479140 {
		t.Errorf("errored session Updated = %d, want the error's message time_updated 1795237479140", got)
	}
	if got := ss[5].LastUserText; got != `"after overflow"` {
		t.Errorf("LastUserText = %q", got)
	}
	if got := ss[6].LastUserText; got != `"RUNWRITE now"` {
		t.Errorf("LastUserText = %q", got)
	}

	sub := changed(t, openSource(t, f.path, Options{IncludeSubagents: true}), time.Time{})
	if len(sub) != 8 || !slices.ContainsFunc(sub, func(s Session) bool { return s.ParentID == "ses_e0381f5ceffei06rppy24q9rUb" }) {
		t.Errorf("IncludeSubagents: %v", sessionIDs(sub))
	}
}

// TestOpenCodeRealMessages reads the messages of the sessions a real OpenCode wrote.
func TestOpenCodeRealMessages(t *testing.T) {
	s := openSource(t, realRowsDB(t).path, Options{})
	wantLines(t, brief(messages(t, s, "ses_e03833000ffejX3rkZHIBexAd8", Watermark{}, 0)), []string{
		`user: "RUNTOOL please"`,
		`assistant:  [bash: echo DISTINCTIVE_TOOL_OUTPUT_42]`,
		`assistant: The command printed the marker.`,
		`user: "second message in same session"`,
		`assistant: Noted. I will keep that in mind.`,
	})
	wantLines(t, brief(messages(t, s, "ses_e0381f5ceffei06rppy24q9rUb", Watermark{}, 0)), []string{
		`user: "RUNTASK go"`,
		`assistant:  [task: Sub job]`,
		`assistant: The command printed the marker.`,
	})
	// The attached file's synthetic parts (a Read call and the file's content) are not the user's words.
	wantLines(t, brief(messages(t, s, "ses_e0381dd89ffeiDGMs7J5NjiZMF", Watermark{}, 0)), []string{
		`user: "read this file"`,
		`assistant: Noted. I will keep that in mind.`,
	})
	// The errored reply has no text: only the user's message remains, and nothing is held back.
	wantLines(t, brief(messages(t, s, "ses_e0383137dffeerVhKQ5Fiv3rws", Watermark{}, 0)), []string{
		`user: "FAILME now"`,
	})
	// Compaction: the trigger message is empty, the summary is flagged, the synthetic "Continue"
	// message is left out.
	wantLines(t, brief(messages(t, s, "ses_e0377b91effepU6yq0LJfaiMIe", Watermark{}, 0)), []string{
		`user: "first BIGUSAGE message"`,
		`assistant: Noted. I will keep that in mind.`,
		`assistant: SUMMARY: user likes tabs. (summary)`,
		`assistant: Noted. I will keep that in mind.`,
		`user: "after overflow"`,
		`assistant: Noted. I will keep that in mind.`,
	})

	// The written file's content (in the tool input and in the user message's diff) stays out.
	written := messages(t, s, "ses_e03638538ffeCES7N4ul1Ee0Yi", Watermark{}, 0)
	wantLines(t, brief(written), []string{
		`user: "RUNWRITE now"`,
		`assistant:  [write: /tmp/transcript-explore/proj/written.txt]`,
		`assistant: The command printed the marker.`,
	})
}
