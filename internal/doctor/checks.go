package doctor

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memoryd/memoryd/internal/shell"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/secrets"
	"github.com/memoryd/memoryd/internal/thesaurus"
	"github.com/memoryd/memoryd/internal/watcher"
)

// configFile warns when the configuration file holds an API key and
// others may read it.
func (d *doctor) configFile() {
	if d.o.Config.LLM.APIKey == "" || d.o.Config.Origin("llm.api_key").Source != config.FromFile {
		return
	}
	fi, err := os.Stat(d.o.ConfigPath)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		d.ok("config file", "holds an API key, readable by you alone")
		return
	}
	d.bad("config file", fmt.Sprintf("%s holds an API key and others may read it (mode %04o)", d.o.ConfigPath, fi.Mode().Perm()),
		"chmod 600 "+shell.Quote(d.o.ConfigPath)+"   (or set MEMORY_LLM_API_KEY in the service's environment instead)")
}

func (d *doctor) folder() {
	dir := d.o.Dir
	probe, err := os.CreateTemp(dir, ".memoryd-tmp-doctor-*")
	if err != nil {
		d.bad("memory folder", fmt.Sprintf("%s is not writable: %v", dir, err), "chmod u+w "+shell.Quote(dir))
		return
	}
	probe.Close()
	os.Remove(probe.Name())
	d.ok("memory folder", dir)
}

func (d *doctor) git() {
	if _, err := exec.LookPath("git"); err != nil {
		d.bad("git", "the git command is not on PATH", "install git (Debian: sudo apt-get install git; macOS: xcode-select --install)")
		return
	}
	d.ok("git", "found")
	switch {
	case errors.Is(d.o.RepoErr, gitstore.ErrNoRepo):
		d.bad("git repository", d.o.Dir+" is not inside a git repository; nothing is committed",
			"git -C "+shell.Quote(d.o.Dir)+" init   (or: memoryd install --git-init)")
		return
	case d.o.RepoErr != nil:
		d.bad("git repository", d.o.RepoErr.Error(), "")
		return
	case d.o.Repo == nil:
		d.bad("git repository", "the repository could not be opened", "")
		return
	}
	d.ok("git repository", d.o.Repo.Root())
	if b, blocked := d.o.Repo.Blocker(); blocked {
		d.bad("commits", "memoryd cannot commit now: "+b.Reason, b.Fix)
	} else {
		d.ok("commits", "nothing blocks them")
	}
	if d.o.Config.Git.Author != "" {
		d.ok("git author", d.o.Config.Git.Author+" (git.author)")
		return
	}
	if a := d.o.Repo.Author(); a != gitstore.FallbackAuthor {
		d.ok("git author", a)
		return
	}
	d.bad("git author", "no git identity: commits are made as "+gitstore.FallbackAuthor,
		`git config --global user.name "Your Name" && git config --global user.email you@example.com`)
}

// files reads the folder the way the daemon does.
func (d *doctor) files() {
	snap, err := index.Scan(d.o.Dir)
	if err != nil {
		d.bad("memory files", err.Error(), "")
		return
	}
	if len(snap.Unreadable) == 0 {
		d.ok("memory files", fmt.Sprintf("%d readable", len(snap.Memories)))
	}
	d.secrets(snap)
	d.held(snap)
	d.ignored(snap)
	for _, u := range snap.Unreadable {
		fix := "fix the file, then it is picked up automatically (or run memoryd rebuild)"
		if strings.Contains(u.Err.Error(), "conflict marker") {
			fix = "resolve the git conflict in " + u.File + " (keep the right text, remove the <<<<<<< ======= >>>>>>> lines)"
		}
		d.bad("memory files", u.Err.Error(), fix)
	}
	d.budget(snap)
	if snap.Conflicts > 0 {
		d.bad("contradictions", fmt.Sprintf("%d unresolved in %s", snap.Conflicts, filepath.Join(d.o.Dir, index.ConflictsFile)),
			"edit the facts so they agree, then delete their sections from _CONFLICTS.md")
	} else {
		d.ok("contradictions", "none")
	}
}

// budget says whether every index fits what agents load, and how many
// facts the indexes leave to search.
func (d *doctor) budget(snap index.Snapshot) {
	b := index.Budget{Lines: d.o.Config.Index.MaxLines, Bytes: d.o.Config.Index.MaxBytes}
	omitted := 0
	for _, st := range index.Measure(snap, b) {
		omitted += st.Omitted
		if b.Exceeded(st.Lines, st.Bytes) {
			d.bad("index budget", fmt.Sprintf("%s is %d lines, %d bytes; agents load at most %d lines, %d bytes (pinned facts and banners always stay)",
				st.File, st.Lines, st.Bytes, b.Lines, b.Bytes), "memoryd compact   (or unpin or remove facts you no longer need)")
			return
		}
	}
	if omitted > 0 {
		d.bad("index budget", fmt.Sprintf("%d memories are not listed in the indexes (agents load at most %d lines, %d bytes of each); memoryd search and memory_search still find them",
			omitted, b.Lines, b.Bytes),
			"memoryd compact   (or remove facts you no longer need)")
		return
	}
	d.ok("index budget", "every fact is listed")
}

// held names the facts the gate holds from agents (planted instructions).
func (d *doctor) held(snap index.Snapshot) {
	if d.o.Held == nil {
		return
	}
	held := d.o.Held(snap)
	for _, h := range held {
		d.bad("held from agents", h, "read it (memoryd show NAME); if it is yours: memoryd check --confirm NAME; if not: memoryd forget NAME --reason planted")
	}
	if len(held) == 0 {
		d.ok("held from agents", "no fact is held from agents")
	}
	if d.o.TeamHeld == nil {
		return
	}
	for _, h := range d.o.TeamHeld() {
		d.bad("team facts held", "the team's "+h, "read it; fix it with your team in a commit to the project (memoryd why NAME says who added it)")
	}
}

// secrets names every file the next commit would keep out — a secret in
// it, or a file the screen cannot read — exactly as the commit's screen
// decides (gitstore.Repo.HeldFiles), with the line and how to let it in.
// Without a repository nothing is committed; the memory files are still
// scanned, so that a secret is found before the folder is put under git.
func (d *doctor) secrets(snap index.Snapshot) {
	const fix = "keep the secret in a password manager and write in the fact where to find it; if it was ever shared or pushed, rotate it. " +
		"A false positive: put " + secrets.AllowMarker + " on its line and the file is committed"
	if d.o.Repo != nil {
		held, err := d.o.Repo.HeldFiles(index.Tracked)
		if err != nil {
			d.bad("secrets", "cannot list the files waiting to be committed: "+err.Error(), "")
			return
		}
		for _, h := range held {
			// The reason says how to let the file in; for a secret, doctor
			// adds what to do with the secret.
			f := ""
			if strings.Contains(h.Reason, " secret") && !strings.Contains(h.Reason, "cannot be screened") {
				f = fix
			}
			d.bad("secrets", h.Reason, f)
		}
		if len(held) == 0 {
			d.ok("secrets", "no file is kept out of commits")
		}
		return
	}
	found := 0
	for _, m := range snap.Memories {
		data, err := index.ReadPlain(d.o.Dir, m.File)
		if err != nil {
			continue
		}
		if f := secrets.ScreenFile(data); len(f) > 0 {
			found++
			d.bad("secrets", fmt.Sprintf("%s:%d holds a secret (%s); memoryd would keep the file out of every commit", m.File, f[0].Line, f[0].Kind), fix)
		}
	}
	if found == 0 {
		d.ok("secrets", "none in the memory files")
	}
}

// ignored says how many memory files git ignores: never committed, and
// left alone by compaction and extraction.
func (d *doctor) ignored(snap index.Snapshot) {
	if d.o.Repo == nil {
		return
	}
	// A rule that catches memoryd's own index keeps the whole folder out
	// of every commit: that is a mistake, not a choice.
	if news, err := d.o.Repo.IgnoredNew(index.Tracked); err == nil {
		for _, f := range news {
			if index.IsIndex(f.Path) {
				d.bad("ignored files", fmt.Sprintf("git ignores the memory folder's files (%s), so none of the %d new file(s) is ever committed",
					f.Rule, len(news)), f.Fix)
				return
			}
		}
	}
	if len(snap.Memories) == 0 {
		return
	}
	files := make([]string, len(snap.Memories))
	for i, m := range snap.Memories {
		files[i] = m.File
	}
	ignored, err := d.o.Repo.Ignored(d.ctx, files)
	if err != nil || len(ignored) == 0 {
		return
	}
	names := slices.Sorted(maps.Keys(ignored))
	d.ok("ignored files", fmt.Sprintf("%d memory file(s) are ignored by git, so never committed; compaction and extraction leave them alone: %s",
		len(names), strings.Join(names[:min(5, len(names))], ", ")))
}

// watchLimit compares the folder's directories with inotify's watch limit.
func (d *doctor) watchLimit() {
	dirs, limit, ok := watcher.WatchLimit(d.o.Dir)
	switch {
	case !ok:
	case dirs*2 > limit:
		d.bad("inotify watches", fmt.Sprintf("the memory folder has %d folders and the limit is %d watches for all programs", dirs, limit),
			fmt.Sprintf("echo fs.inotify.max_user_watches=%d | sudo tee /etc/sysctl.d/90-memoryd.conf && sudo sysctl --system", max(dirs*4, 524288)))
	default:
		d.ok("inotify watches", fmt.Sprintf("%d folders, limit %d", dirs, limit))
	}
}

func (d *doctor) service() {
	if d.o.InstallErr != nil {
		d.bad("service", d.o.InstallErr.Error(), "")
		return
	}
	st, err := install.Status(d.ctx, d.o.Install)
	switch {
	case !st.Installed && d.o.Running:
		// Started by hand (a container, no user bus): the setup works.
		d.unused("service", "not installed as a service; a daemon started by hand runs for this folder")
		return
	case !st.Installed && err != nil && errors.Is(err, install.ErrNoUserManager):
		d.bad("service", "no per-user service manager is reachable, so memoryd cannot run as a service here",
			fmt.Sprintf("start it by hand (in tmux, or from your shell profile): %s run --config %s — or log in to a session with systemd --user",
				shell.Quote(d.o.Install.Binary), shell.Quote(d.o.Install.ConfigPath)))
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
	user := d.o.User
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

// thesaurusCheck says whether search has WordNet to look for a word no
// fact has by the words related to it (search.thesaurus). Without it
// search matches words alone, which is no problem unless the
// configuration names a folder that does not hold it.
func (d *doctor) thesaurusCheck() {
	setting := d.o.Config.Search.Thesaurus
	var t *thesaurus.Thesaurus
	switch setting {
	case thesaurus.Off:
		d.unused("thesaurus", "off (search.thesaurus): search matches a question's words alone")
		return
	case "":
		t = thesaurus.Find()
	default:
		var err error
		if t, err = thesaurus.Open(setting); err != nil {
			d.bad("thesaurus", "search.thesaurus is "+setting+", which holds no WordNet database: "+err.Error(),
				"point search.thesaurus at the folder holding WordNet's index.noun, or set it to off")
			return
		}
	}
	if t == nil {
		d.unused("thesaurus", "WordNet not found in $WNSEARCHDIR nor "+strings.Join(thesaurus.Dirs, ", ")+
			": search matches a question's words alone (install it for \"herb\" to find \"coriander\": apt-get install wordnet-base, or brew install wordnet)")
		return
	}
	defer t.Close()
	d.ok("thesaurus", "WordNet in "+t.Dir()+": a word no fact has is looked for by its related words")
}
