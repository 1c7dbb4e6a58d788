package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/needtool"
)

// These tests run the built binary on typos, the completion scripts and
// --json, as a user would.

// TestCLITyposUnknownCommandSuggests checks a mistyped command: one line
// with the command meant, a pointer to --help, not the whole help; exit 2.
func TestCLITyposUnknownCommandSuggests(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		args  []string
		first string
	}{
		{[]string{"serch", "tabs"}, `memoryd: unknown command "serch"; did you mean "search"?`},
		{[]string{"hsitory"}, `memoryd: unknown command "hsitory"; did you mean "history"?`},
		{[]string{"stauts", "--json"}, `memoryd: unknown command "stauts"; did you mean "status"?`},
		{[]string{"frobnicate"}, `memoryd: unknown command "frobnicate"`},
		{[]string{"help", "serch"}, `memoryd help: unknown command "serch"; did you mean "search"?`},
	} {
		stdout, stderr, code := w.runCmd2(nil, tc.args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 2 || stdout != "" || len(lines) != 2 || lines[0] != tc.first ||
			lines[1] != "Run 'memoryd --help' for the list of commands." {
			t.Errorf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, stdout, stderr)
		}
	}
}

// TestCLITyposUnknownFlagSuggests checks a mistyped flag: the flag meant
// instead of Go's "flag provided but not defined"; exit 2.
func TestCLITyposUnknownFlagSuggests(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		args  []string
		first string
	}{
		{[]string{"list", "--tpye", "user"}, "memoryd list: unknown flag --tpye; did you mean --type?"},
		{[]string{"list", "-tpye=user"}, "memoryd list: unknown flag -tpye; did you mean --type?"},
		{[]string{"status", "-memory-dir", "x"}, "memoryd status: unknown flag -memory-dir; did you mean --memory-dir?"},
		{[]string{"status", "--jsno"}, "memoryd status: unknown flag --jsno; did you mean --json?"},
		{[]string{"add", "--descripton", "x"}, "memoryd add: unknown flag --descripton; did you mean --description?"},
		{[]string{"compact", "--dry"}, "memoryd compact: unknown flag --dry; did you mean --dry-run?"},
		{[]string{"status", "--memroy-dir", "x"}, "memoryd status: unknown flag --memroy-dir; did you mean --memory-dir?"},
		{[]string{"status", "--nope"}, "memoryd status: unknown flag --nope"},
	} {
		stdout, stderr, code := w.runCmd2(nil, tc.args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != 2 || stdout != "" || first != tc.first || strings.Contains(stderr, "not defined") {
			t.Errorf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, stdout, stderr)
		}
	}
}

// TestCLITyposFixedValuesChecked checks every value with a fixed set:
// refused before anything runs, with the valid values named; exit 2.
func TestCLITyposFixedValuesChecked(t *testing.T) {
	w := newWorld(t)
	types := "user, feedback, project, reference"
	for _, tc := range []struct {
		args  []string
		first string
	}{
		{[]string{"list", "--type", "projcet"}, `memoryd list: --type "projcet" is not one of ` + types},
		{[]string{"list", "--type=projcet", "--json"}, `memoryd list: --type "projcet" is not one of ` + types},
		{[]string{"search", "--type", "usr", "tabs"}, `memoryd search: --type "usr" is not one of ` + types},
		{[]string{"add", "--type", "fedback", "--name", "n", "--description", "d", "body"}, `memoryd add: --type "fedback" is not one of ` + types},
		{[]string{"review", "acept", "x"}, `memoryd review: action "acept" is not one of accept, reject`},
		{[]string{"import", "claud"}, `memoryd import: source "claud" is not one of claude`},
		{[]string{"completion", "tcsh"}, `memoryd completion: shell "tcsh" is not one of bash, zsh, fish, powershell`},
		{[]string{"recall", "--format", "jsn"}, `memoryd recall: --format "jsn" is not one of auto, json, text`},
	} {
		stdout, stderr, code := w.runCmd2(nil, tc.args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != 2 || stdout != "" || first != tc.first {
			t.Errorf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(w.mem, "feedback-n.md")); err == nil {
		t.Error("add with a bad type wrote a fact")
	}
	// The valid values still work, and no --type still means every type.
	w.write("user-tabs.md", memoryFile("user", "tabs", "prefers tabs", "Tabs."))
	w.write("project-ci.md", memoryFile("project", "ci", "CI runs on push", "CI."))
	for args, want := range map[string]int{"list --type user --json": 1, "list --json": 2, "list --type= --json": 2} {
		stdout, stderr, code := w.runCmd2(nil, strings.Fields(args)...)
		var got []map[string]any
		if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || len(got) != want {
			t.Errorf("%s: exit %d, %d facts, want %d\n%s%s", args, code, len(got), want, stdout, stderr)
		}
	}
}

// TestCLICompletionBash runs cobra's bash script in a real bash and
// checks that it completes a command, a flag, a flag's value and a fact
// name (asked of the binary, from the memory folder the line names).
func TestCLICompletionBash(t *testing.T) {
	w := newWorld(t)
	w.write("user-prefers-tabs.md", memoryFile("user", "prefers-tabs", "prefers tabs", "Tabs."))
	w.write("project-ci.md", memoryFile("project", "ci", "CI runs on push", "CI."))
	other := filepath.Join(w.home, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "user-pager.md"), []byte(memoryFile("user", "pager", "less", "less.")), 0o644)
	script, stderr, code := w.runCmd2(nil, "completion", "bash")
	if code != 0 || stderr != "" || !strings.Contains(script, "-F __start_memoryd memoryd") {
		t.Fatalf("completion bash: exit %d\n%s", code, stderr)
	}
	path := filepath.Join(w.home, "memoryd.bash")
	os.WriteFile(path, []byte(script), 0o644)
	complete := func(line string) string {
		t.Helper()
		// COMP_WORDS as bash splits the line: words, with an empty last
		// one when the line ends in a space. _get_comp_words_by_ref is
		// bash-completion's, which cobra's script uses; here, its least;
		// compopt only works inside a completion bash itself started.
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", `source "$1" || exit 9
compopt() { :; }
_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
read -ra COMP_WORDS <<< "$2"
[[ "$2" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_TYPE=9
__start_memoryd
echo "${COMPREPLY[*]}"`, "bash", path, line)
		cmd.Env = append(append([]string{}, w.env...), "PATH="+filepath.Dir(binPath)+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", line, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for line, want := range map[string]string{
		"memoryd sea":                                  "search",
		"memoryd hist":                                 "history",
		"memoryd list --ty":                            "--type",
		"memoryd list --type pro":                      "project",
		"memoryd recall --format j":                    "json",
		"memoryd show pref":                            "prefers-tabs",
		"memoryd forget user-":                         "user-prefers-tabs",
		"memoryd why --memory-dir " + other + " user-": "user-pager",
		"memoryd edit nothing-like-it":                 "",
		"memoryd review ":                              "accept reject",
		"memoryd completion f":                         "fish",
	} {
		if got := complete(line); got != want {
			t.Errorf("%q completes to %q, want %q", line, got, want)
		}
	}
	if got := complete("memoryd show "); !strings.Contains(got, "user-prefers-tabs") || !strings.Contains(got, "project-ci") {
		t.Errorf("show: %q", got)
	}
	if got := complete("memoryd "); strings.Contains(got, "__complete") || !strings.Contains(got, "completion") {
		t.Errorf("commands: %q", got)
	}
}

// TestCLICompletionFactsQuiet asks cobra's hidden __complete for fact
// names and projects: those that start with the prefix; none, exit 0, on
// any error.
func TestCLICompletionFactsQuiet(t *testing.T) {
	w := newWorld(t)
	w.write("user-prefers-tabs.md", memoryFile("user", "prefers-tabs", "prefers tabs", "Tabs."))
	stdout, stderr, code := w.runCmd2(nil, "__complete", "show", "user")
	if code != 0 || stdout != "user-prefers-tabs\n:4\n" {
		t.Errorf("__complete show user: exit %d\n%s%s", code, stdout, stderr)
	}
	w.write("project-deploy.md", "---\nname: deploy\ndescription: Deploys with make ship\nmetadata:\n  type: project\n  project: shop-app\n---\nRun make ship.\n")
	for _, cmd := range []string{"list", "search", "check", "add"} {
		stdout, stderr, code = w.runCmd2(nil, "__complete", cmd, "--project", "sh")
		if code != 0 || stdout != "shop-app\n:4\n" {
			t.Errorf("__complete %s --project sh: exit %d\n%s%s", cmd, code, stdout, stderr)
		}
	}
	for _, tc := range [][]string{
		{"__complete", "show", "--memory-dir", filepath.Join(w.home, "nowhere"), "u"},
		{"__complete", "why", "--config", filepath.Join(w.home, "nowhere.yaml"), "u"},
		{"__complete", "show", "user-prefers-tabs", ""},
	} {
		stdout, stderr, code := w.runCmd2(nil, tc...)
		if code != 0 || stdout != ":4\n" {
			t.Errorf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", tc, code, stdout, stderr)
		}
	}
	stdout, _, _ = w.runCmd2(nil, "--help")
	if strings.Contains(stdout, "__complete") {
		t.Errorf("the hidden command is in the help:\n%s", stdout)
	}
}

// TestCLICompletionZshFish checks that cobra's zsh and fish scripts parse,
// and that fish, which can be asked directly, completes a command, a flag
// value and a fact.
func TestCLICompletionZshFish(t *testing.T) {
	w := newWorld(t)
	w.write("user-prefers-tabs.md", memoryFile("user", "prefers-tabs", "prefers tabs", "Tabs."))
	for _, sh := range []string{"zsh", "fish"} {
		script, stderr, code := w.runCmd2(nil, "completion", sh)
		if code != 0 || stderr != "" || !strings.Contains(script, "__complete") {
			t.Fatalf("completion %s: exit %d\n%s", sh, code, stderr)
		}
		bin := needtool.Path(t, sh)
		path := filepath.Join(w.home, "memoryd."+sh)
		os.WriteFile(path, []byte(script), 0o644)
		if out, err := exec.Command(bin, "-n", path).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", sh, err, out)
		}
	}
	needtool.Path(t, "fish")
	cmd := exec.Command("fish", "--no-config", "-c", `source $argv[1]
complete -C "memoryd hist"; complete -C "memoryd list --type ref"; complete -C "memoryd show pref"`, filepath.Join(w.home, "memoryd.fish"))
	cmd.Env = append(append([]string{}, w.env...), "PATH="+filepath.Dir(binPath)+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	for _, want := range []string{"history\t", "reference", "prefers-tabs"} {
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("fish: %v, no %q in\n%s", err, want, out)
		}
	}
}

// TestCLIUnknownFlagMessage watches pflag's error for an unknown flag,
// which flagError rewrites.
func TestCLIUnknownFlagMessage(t *testing.T) {
	cmd := &cobra.Command{Use: "t"}
	cmd.Flags().Bool("json", false, "")
	for args, want := range map[string]string{"--zz": "unknown flag --zz", "-zz": "unknown flag -zz", "--jsno": "unknown flag --jsno; did you mean --json?"} {
		err := cmd.Flags().Parse([]string{args})
		if got := flagError(cmd, err); err == nil || got.Error() != want {
			t.Errorf("%s: pflag says %v, rewritten %v, want %q", args, err, got, want)
		}
	}
}

// TestCLIJSONShapes checks --json on history, show, why and review (the
// list), as docs/JSON.md describes them, and that empty results are [],
// never null, there and in list and search.
func TestCLIJSONShapes(t *testing.T) {
	w := newWorld(t)
	decode := func(args ...string) any {
		t.Helper()
		stdout, stderr, code := w.runCmd2(nil, args...)
		var v any
		if err := json.Unmarshal([]byte(stdout), &v); code != 0 || err != nil {
			t.Fatalf("%q: exit %d, %v\n%s%s", args, code, err, stdout, stderr)
		}
		if strings.Contains(stdout, "null") {
			t.Errorf("%q printed null:\n%s", args, stdout)
		}
		return v
	}
	for _, args := range [][]string{
		{"history", "--json"}, {"review", "--json"}, {"list", "--json"}, {"search", "--json", "nothing"},
	} {
		if v, ok := decode(args...).([]any); !ok || len(v) != 0 {
			t.Errorf("%q on an empty folder: %v, want []", args, v)
		}
	}
	if _, _, code := w.runCmd2(nil, "add", "--type", "user", "--name", "tabs", "--description", "prefers tabs", "Tabs, not spaces."); code != 0 {
		t.Fatal("add failed")
	}
	hist, _ := decode("history", "--json").([]any)
	if len(hist) != 1 {
		t.Fatalf("history --json: %v", hist)
	}
	h := hist[0].(map[string]any)
	if len(h["hash"].(string)) != 40 || h["kind"] == "" || h["undoable"] != true || h["at"] == "" ||
		!strings.Contains(h["subject"].(string), "tabs") || len(h["files"].([]any)) == 0 {
		t.Errorf("history --json entry: %v", h)
	}
	show := decode("show", "tabs", "--json").(map[string]any)
	if show["file"] != "user-tabs.md" || show["name"] != "tabs" || show["type"] != "user" ||
		show["description"] != "prefers tabs" || !strings.Contains(show["content"].(string), "Tabs, not spaces.") {
		t.Errorf("show --json: %v", show)
	}
	why := decode("why", "--json", "user-tabs.md").(map[string]any)
	fact, _ := why["fact"].(map[string]any)
	commits, _ := why["commits"].([]any)
	if fact["file"] != "user-tabs.md" || len(commits) != 1 || why["transcripts"] == nil || why["sources"] == nil ||
		!strings.Contains(why["content"].(string), "Tabs, not spaces.") {
		t.Errorf("why --json: %v", why)
	}
	os.MkdirAll(filepath.Join(w.mem, "_inbox"), 0o755)
	w.write(filepath.Join("_inbox", "feedback-go-tabs.md"), memoryFile("feedback", "go-tabs", "gofmt uses tabs", "Tabs."))
	inbox, _ := decode("review", "--json").([]any)
	if len(inbox) != 1 || inbox[0].(map[string]any)["file"] != "_inbox/feedback-go-tabs.md" {
		t.Errorf("review --json: %v", inbox)
	}
	if _, stderr, code := w.runCmd2(nil, "review", "accept", "go-tabs", "--json"); code != 2 || !strings.Contains(stderr, "takes no action") {
		t.Errorf("review accept --json: exit %d\n%s", code, stderr)
	}
}
