package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/memoryd/memoryd/gitstore"
	"github.com/memoryd/memoryd/index"
	"github.com/memoryd/memoryd/install"
)

func init() {
	register(&command{
		name:    "doctor",
		summary: "Check the setup; print each problem with the command that fixes it (exit 1 if any).",
		run:     runDoctor,
	})
}

// finding is one check's outcome: ok, or a problem with its fix.
type finding struct {
	check   string
	problem string // "" means ok
	fix     string
	note    string // extra detail for an ok check
}

// doctor collects findings; each check appends one or more.
type doctor struct {
	ctx      context.Context
	e        env
	f        *folder
	findings []finding
}

func (d *doctor) ok(check, note string) {
	d.findings = append(d.findings, finding{check: check, note: note})
}

func (d *doctor) bad(check, problem, fix string) {
	d.findings = append(d.findings, finding{check: check, problem: problem, fix: fix})
}

func runDoctor(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return usageError{"unexpected arguments: " + strings.Join(args, " ")}
	}
	d := &doctor{ctx: ctx, e: e}
	f, err := openFolder(e, fs)
	if err != nil {
		d.bad("memory folder", err.Error(), "memoryd install --memory-dir DIR")
	} else {
		d.f = f
		d.folderChecks()
		d.gitChecks()
		d.fileChecks()
		d.watchLimit()
	}
	d.serviceChecks()
	d.openCodeChecks()
	if d.f != nil {
		d.llmCheck()
		d.transcriptCheck()
	}
	problems := 0
	for _, x := range d.findings {
		if x.problem == "" {
			line := "ok       " + x.check
			if x.note != "" {
				line += ": " + x.note
			}
			fmt.Fprintln(e.stdout, line)
			continue
		}
		problems++
		fmt.Fprintf(e.stdout, "PROBLEM  %s: %s\n", x.check, x.problem)
		if x.fix != "" {
			fmt.Fprintf(e.stdout, "         fix: %s\n", x.fix)
		}
	}
	if problems > 0 {
		return fmt.Errorf("%d problem(s) found", problems)
	}
	fmt.Fprintln(e.stdout, "everything looks fine")
	return nil
}

func (d *doctor) folderChecks() {
	dir := d.f.dir
	probe, err := os.CreateTemp(dir, ".memoryd-tmp-doctor-*")
	if err != nil {
		d.bad("memory folder", fmt.Sprintf("%s is not writable: %v", dir, err), "chmod u+w "+shellQuote(dir))
		return
	}
	probe.Close()
	os.Remove(probe.Name())
	d.ok("memory folder", dir)
}

func (d *doctor) gitChecks() {
	if _, err := exec.LookPath("git"); err != nil {
		d.bad("git", "the git command is not on PATH", "install git (Debian: sudo apt-get install git; macOS: xcode-select --install)")
		return
	}
	d.ok("git", "found")
	switch {
	case errors.Is(d.f.repoErr, gitstore.ErrNoRepo):
		d.bad("git repository", d.f.dir+" is not inside a git repository; nothing is committed",
			"git -C "+shellQuote(d.f.dir)+" init   (or: memoryd install --git-init)")
		return
	case d.f.repoErr != nil:
		d.bad("git repository", d.f.repoErr.Error(), "")
		return
	}
	d.ok("git repository", d.f.repo.Root())
	if d.f.cfg.Git.Author != "" {
		d.ok("git author", d.f.cfg.Git.Author+" (git.author)")
		return
	}
	name := gitConfig(d.f.repo.Root(), "user.name")
	email := gitConfig(d.f.repo.Root(), "user.email")
	if name == "" || email == "" {
		d.bad("git author", "no git identity: commits are made as memoryd <memoryd@localhost>",
			`git config --global user.name "Your Name" && git config --global user.email you@example.com`)
		return
	}
	d.ok("git author", fmt.Sprintf("%s <%s>", name, email))
}

func gitConfig(dir, key string) string {
	out, err := exec.Command("git", "-C", dir, "config", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// fileChecks reads the folder the way the daemon does.
func (d *doctor) fileChecks() {
	st := index.NewStore(d.f.dir)
	if err := st.Scan(); err != nil {
		d.bad("memory files", err.Error(), "")
		return
	}
	snap := st.Snapshot()
	if len(snap.Unreadable) == 0 {
		d.ok("memory files", fmt.Sprintf("%d readable", len(snap.Memories)))
	}
	for _, u := range snap.Unreadable {
		fix := "fix the file, then it is picked up automatically (or run memoryd rebuild)"
		if strings.Contains(u.Err.Error(), "conflict marker") {
			fix = "resolve the git conflict in " + u.File + " (keep the right text, remove the <<<<<<< ======= >>>>>>> lines)"
		}
		d.bad("memory files", u.Err.Error(), fix)
	}
	built := index.Build(snap)
	b := index.Budget{Lines: d.f.cfg.Index.MaxLines, Bytes: d.f.cfg.Index.MaxBytes}
	if over, lines, size := b.Over(built); over {
		d.bad("index budget", fmt.Sprintf("MEMORY.md would be %d lines, %d bytes; agents load at most %d lines, %d bytes", lines, size, b.Lines, b.Bytes),
			"memoryd compact   (or remove facts you no longer need)")
	} else {
		d.ok("index budget", fmt.Sprintf("%d lines, %d bytes", lines, size))
	}
	if snap.Conflicts > 0 {
		d.bad("contradictions", fmt.Sprintf("%d unresolved in %s", snap.Conflicts, filepath.Join(d.f.dir, index.ConflictsFile)),
			"edit the facts so they agree, then delete their sections from _CONFLICTS.md")
	} else {
		d.ok("contradictions", "none")
	}
}

// watchLimit compares the folder's directories with inotify's watch limit.
func (d *doctor) watchLimit() {
	if runtime.GOOS != "linux" {
		return
	}
	data, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return
	}
	limit, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	dirs := 0
	filepath.WalkDir(d.f.dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			if p != d.f.dir && strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			dirs++
		}
		return nil
	})
	if limit > 0 && dirs*2 > limit {
		d.bad("inotify watches", fmt.Sprintf("the memory folder has %d folders and the limit is %d watches for all programs", dirs, limit),
			fmt.Sprintf("echo fs.inotify.max_user_watches=%d | sudo tee /etc/sysctl.d/90-memoryd.conf && sudo sysctl --system", max(dirs*4, 524288)))
		return
	}
	d.ok("inotify watches", fmt.Sprintf("%d folders, limit %d", dirs, limit))
}

func (d *doctor) serviceChecks() {
	o, err := installOptions(d.e, flag.NewFlagSet("", flag.ContinueOnError), "")
	if err != nil {
		d.bad("service", err.Error(), "")
		return
	}
	st, err := install.Status(d.ctx, o)
	switch {
	case !st.Installed && err != nil && errors.Is(err, install.ErrNoUserManager):
		d.bad("service", "no per-user service manager is reachable, so memoryd cannot run as a service here",
			"run memoryd run yourself, or log in to a session with systemd --user")
		return
	case !st.Installed:
		d.bad("service", "memoryd is not installed as a service", "memoryd install --memory-dir DIR")
		return
	case err != nil:
		d.bad("service", err.Error(), "memoryd restart")
		return
	case !st.Running:
		d.bad("service", fmt.Sprintf("installed (%s) but not running: %s", st.File, st.Detail), "memoryd start   (logs: journalctl --user -u memoryd)")
	case !st.Current:
		d.ok("service", "running; the service file differs from what this binary would write (memoryd install to refresh)")
	default:
		d.ok("service", "running")
	}
	if st.Platform == "systemd" {
		d.lingerCheck()
	}
}

// lingerCheck asks logind whether the user's services outlive their logins.
func (d *doctor) lingerCheck() {
	user := d.e.getenv("USER")
	if user == "" {
		return
	}
	out, err := exec.CommandContext(d.ctx, "loginctl", "show-user", user, "--property=Linger", "--value").Output()
	if err != nil {
		return // no logind: nothing to say
	}
	if strings.TrimSpace(string(out)) != "yes" {
		d.bad("lingering", "memoryd stops when you log out", "loginctl enable-linger "+user)
		return
	}
	d.ok("lingering", "on")
}

func (d *doctor) openCodeChecks() {
	if _, err := exec.LookPath("opencode"); err != nil {
		d.ok("opencode", "not installed (only needed for the opencode provider and OpenCode transcripts)")
		return
	}
	d.ok("opencode", "found")
	dir := install.OpenCodeDir(d.e.getenv("HOME"), d.e.getenv("XDG_CONFIG_HOME"))
	if d.f == nil {
		return
	}
	file, list, err := install.OpenCodeInstructions(dir)
	if err != nil {
		d.bad("opencode instructions", err.Error(), "fix the file, then memoryd install --opencode")
		return
	}
	missing := []string{}
	for _, want := range install.Instructions(d.f.dir) {
		found := false
		for _, have := range list {
			found = found || have == want
		}
		if !found {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		where := "OpenCode's global config"
		if file != "" {
			where = file
		}
		d.bad("opencode instructions", fmt.Sprintf("%s does not load %s", where, strings.Join(missing, ", ")),
			"memoryd install --opencode --memory-dir "+shellQuote(d.f.dir))
		return
	}
	d.ok("opencode instructions", file)
}

// llmCheck says which provider is used and whether it answers.
func (d *doctor) llmCheck() {
	provider := providerName(d.f)
	switch provider {
	case "none":
		d.bad("llm provider", "none configured: compaction and extraction are off",
			"set llm.provider in "+d.f.cfgPath+" (opencode, openai or anthropic), or MEMORY_LLM_PROVIDER")
		return
	case "opencode":
		if _, err := exec.LookPath("opencode"); err != nil {
			d.bad("llm provider", "opencode is the provider but is not on PATH", "install OpenCode, or choose another llm.provider")
			return
		}
		d.ok("llm provider", "opencode (uses OpenCode's own provider settings)")
		return
	}
	base := d.f.cfg.LLM.BaseURL
	if base == "" {
		base = map[string]string{"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}[provider]
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		d.bad("llm provider", fmt.Sprintf("llm.base_url %q is not a URL", base), "fix llm.base_url")
		return
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80"}[u.Scheme]+map[string]string{"https": "443"}[u.Scheme])
	}
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(d.ctx, "tcp", host)
	if err != nil {
		d.bad("llm provider", fmt.Sprintf("%s at %s is not reachable: %v", provider, base, err), "check llm.base_url and your network")
		return
	}
	conn.Close()
	if d.f.cfg.LLM.APIKey == "" && !isLoopback(u.Hostname()) {
		d.bad("llm provider", provider+" has no API key", "set MEMORY_LLM_API_KEY (or OPENAI_API_KEY / ANTHROPIC_API_KEY)")
		return
	}
	d.ok("llm provider", provider+" at "+base)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func shellQuote(s string) string {
	if strings.ContainsAny(s, " '\"$`\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
