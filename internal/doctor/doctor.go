// Package doctor checks a memoryd setup the way a careful user would — the
// folder, git, the files, the service, the agents' wiring, the model, the
// transcripts — and turns every problem into a finding with the command
// that fixes it. It changes nothing.
package doctor

import (
	"context"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/transcript"
)

// Finding is one check's outcome: ok (Problem empty), not used (NotUsed:
// the user did not set this part up, which is not a problem), or a problem
// and its fix.
type Finding struct {
	Check   string
	Problem string
	Fix     string
	Note    string // detail for an ok or unused check
	NotUsed bool
}

// State is the finding in one word: "ok", "not used" or "problem".
func (f Finding) State() string {
	switch {
	case f.Problem != "":
		return "problem"
	case f.NotUsed:
		return "not used"
	}
	return "ok"
}

// Options is what the checks look at; the command line resolves it.
type Options struct {
	// FolderErr is why the memory folder could not be opened; then only
	// the checks that need no folder run.
	FolderErr  error
	Dir        string // the memory folder, real path
	Config     config.Config
	ConfigPath string
	Repo       *gitstore.Repo // nil when RepoErr says why
	RepoErr    error
	// Install describes the service; InstallErr is why it could not be.
	Install    install.Options
	InstallErr error
	User       string // the login name, for loginctl
	// Running is whether a daemon holds the folder's instance lock: one
	// started by hand makes a missing service no problem.
	Running bool
	// OpenCodeDir is OpenCode's global config folder.
	OpenCodeDir string
	// Provider is the resolved llm.provider; LLM the client options, for
	// listing the provider's models.
	Provider string
	LLM      llm.Options
	// StateDir is the folder's state folder, where the model check is
	// cached; Cached, when set, is a cached check young enough to use.
	StateDir string
	Cached   *ModelCheck
	// OpenCodeModel is OpenCode's own model when the opencode provider
	// runs with no model configured ("" otherwise), kept with the check.
	OpenCodeModel string
	// Live, when set (doctor --llm), makes one tiny real call.
	Live llm.Completer
	// Sources are the transcript stores extraction would read.
	Sources *transcript.Sources
	// Sync is sync's configuration and last known state.
	Sync SyncState
	// Held, when set, names the facts of a snapshot the gate on the way
	// out holds from agents until a person confirms them, one sentence
	// each with the way out.
	Held func(index.Snapshot) []string
	// TeamHeld, when set, names the team facts of the working directory's
	// project (its .memory/) the gate holds from agents in this checkout,
	// "file: reason" each.
	TeamHeld func() []string
}

// Run runs every check and returns the findings in order.
func Run(ctx context.Context, o Options) []Finding {
	d := &doctor{ctx: ctx, o: o}
	if o.FolderErr != nil {
		d.bad("memory folder", o.FolderErr.Error(), "memoryd install --memory-dir DIR")
	} else {
		d.folder()
		d.configFile()
		d.git()
		d.syncCheck()
		d.files()
		d.watchLimit()
		d.openFiles()
		d.thesaurusCheck()
	}
	d.service()
	d.openCode()
	d.agents()
	if o.FolderErr == nil {
		d.llm()
		d.transcripts()
	}
	return d.findings
}

// Problems counts the findings that are problems.
func Problems(fs []Finding) int {
	n := 0
	for _, f := range fs {
		if f.Problem != "" {
			n++
		}
	}
	return n
}

// doctor collects findings; each check appends one or more.
type doctor struct {
	ctx      context.Context
	o        Options
	findings []Finding
}

func (d *doctor) ok(check, note string) {
	d.findings = append(d.findings, Finding{Check: check, Note: note})
}

// unused says a part the user did not set up is not used.
func (d *doctor) unused(check, note string) {
	d.findings = append(d.findings, Finding{Check: check, Note: note, NotUsed: true})
}

func (d *doctor) bad(check, problem, fix string) {
	d.findings = append(d.findings, Finding{Check: check, Problem: problem, Fix: fix})
}
