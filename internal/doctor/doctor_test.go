package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/gittest"
	"github.com/memoryd/memoryd/internal/needtool"
	"github.com/memoryd/memoryd/internal/thesaurus"
)

func TestMain(m *testing.M) { gittest.Main(m) }

// find returns the findings of one check.
func find(fs []Finding, check string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

func TestFolderWithoutRepositoryAndBrokenFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "user-a.md"), []byte("---\nname: a\n<<<<<<< HEAD\n"), 0o644)
	cfg := config.Default()
	cfg.Extract.Enabled = false
	_, repoErr := gitstore.Open(dir, gitstore.Options{})
	fs := Run(context.Background(), Options{Dir: dir, Config: cfg, RepoErr: repoErr, Provider: "none",
		InstallErr: errors.New("no service here")})

	repo := find(fs, "git repository")
	if len(repo) != 1 || !strings.Contains(repo[0].Problem, "not inside a git repository") || !strings.Contains(repo[0].Fix, "git -C") {
		t.Errorf("git repository: %+v", repo)
	}
	files := find(fs, "memory files")
	if len(files) != 1 || !strings.Contains(files[0].Fix, "resolve the git conflict in user-a.md") {
		t.Errorf("memory files: %+v", files)
	}
	// No provider is a choice, not a problem: the part is not used.
	if llm := find(fs, "llm provider"); len(llm) != 1 || llm[0].Problem != "" || llm[0].State() != "not used" {
		t.Errorf("llm provider: %+v", llm)
	}
	if tr := find(fs, "transcripts"); len(tr) != 1 || tr[0].Problem != "" || !strings.Contains(tr[0].Note, "off") {
		t.Errorf("transcripts: %+v", tr)
	}
	if Problems(fs) < 3 {
		t.Errorf("%d problems in %+v", Problems(fs), fs)
	}
}

func TestHealthyFolderInRepository(t *testing.T) {
	root := t.TempDir()
	gittest.Run(t, root, "init", "-q")
	cfg := config.Default()
	cfg.Extract.Enabled = false
	repo, err := gitstore.Open(root, gitstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs := Run(context.Background(), Options{Dir: root, Config: cfg, Repo: repo, Provider: "none"})
	for _, check := range []string{"memory folder", "git repository", "git author", "memory files", "index budget", "contradictions"} {
		if got := find(fs, check); len(got) != 1 || got[0].Problem != "" {
			t.Errorf("%s: %+v", check, got)
		}
	}
}

func TestFolderErrorSkipsFolderChecks(t *testing.T) {
	fs := Run(context.Background(), Options{FolderErr: errors.New("memory folder /x does not exist"), InstallErr: errors.New("x")})
	if len(fs) == 0 || fs[0].Check != "memory folder" || !strings.Contains(fs[0].Fix, "memoryd install") {
		t.Fatalf("findings: %+v", fs)
	}
	if len(find(fs, "git repository")) != 0 || len(find(fs, "llm provider")) != 0 {
		t.Fatalf("folder checks ran without a folder: %+v", fs)
	}
}

// TestBlockerReported: what blocks commits (here a merge in progress) is a
// problem doctor names, with the fix.
func TestBlockerReported(t *testing.T) {
	root := t.TempDir()
	gittest.Run(t, root, "init", "-q")
	gittest.Run(t, root, "commit", "-q", "--allow-empty", "-m", "one")
	os.WriteFile(filepath.Join(root, ".git", "MERGE_HEAD"), []byte(gittest.Run(t, root, "rev-parse", "HEAD")+"\n"), 0o644)
	cfg := config.Default()
	cfg.Extract.Enabled = false
	repo, err := gitstore.Open(root, gitstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs := Run(context.Background(), Options{Dir: root, Config: cfg, Repo: repo, Provider: "none"})
	got := find(fs, "commits")
	if len(got) != 1 || got[0].Problem == "" || got[0].Fix == "" {
		t.Fatalf("commits: %+v", got)
	}
}

// TestConfigFileWithKeyReadableByOthers: an API key in a config file that
// others can read is a problem, with the chmod that fixes it.
func TestConfigFileWithKeyReadableByOthers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	os.WriteFile(path, []byte("memory_dir: "+dir+"\nllm:\n  provider: openai\n  api_key: sk-test\n"), 0o644)
	cfg, err := config.Load(path, true, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Extract.Enabled = false
	fs := Run(context.Background(), Options{Dir: dir, Config: cfg, ConfigPath: path, Provider: "none"})
	got := find(fs, "config file")
	if len(got) != 1 || !strings.Contains(got[0].Problem, "holds an API key and others may read it") || !strings.Contains(got[0].Fix, "chmod 600") {
		t.Fatalf("config file: %+v", got)
	}
	os.Chmod(path, 0o600)
	fs = Run(context.Background(), Options{Dir: dir, Config: cfg, ConfigPath: path, Provider: "none"})
	if got := find(fs, "config file"); len(got) != 1 || got[0].Problem != "" {
		t.Fatalf("after chmod 600: %+v", got)
	}
}

// TestThesaurusCheck: WordNet found is said with its folder, not found is
// "not used", never a problem.
func TestThesaurusCheck(t *testing.T) {
	sys := thesaurus.Find()
	if sys == nil {
		needtool.Missing(t, "WordNet", "not found", "apt-get install wordnet-base (.ci/run does)")
	}
	sys.Close()
	sysDir := sys.Dir()
	root := t.TempDir()
	cfg := config.Default()
	cfg.Extract.Enabled = false
	run := func() Finding {
		t.Helper()
		got := find(Run(context.Background(), Options{Dir: root, Config: cfg, RepoErr: gitstore.ErrNoRepo, Provider: "none"}), "thesaurus")
		if len(got) != 1 || got[0].Problem != "" {
			t.Fatalf("thesaurus: %+v", got)
		}
		return got[0]
	}
	if f := run(); f.State() != "ok" || !strings.Contains(f.Note, "WordNet in "+sysDir) {
		t.Errorf("with WordNet: %+v", f)
	}
	saved := thesaurus.Dirs
	defer func() { thesaurus.Dirs = saved }()
	thesaurus.Dirs = nil
	t.Setenv("WNSEARCHDIR", filepath.Join(root, "none"))
	if f := run(); f.State() != "not used" || !strings.Contains(f.Note, "apt-get install wordnet-base") {
		t.Errorf("without WordNet: %+v", f)
	}
	cfg.Search.Thesaurus = "off"
	if f := run(); f.State() != "not used" || !strings.Contains(f.Note, "off (search.thesaurus)") {
		t.Errorf("search.thesaurus off: %+v", f)
	}
	cfg.Search.Thesaurus = sysDir
	if f := run(); f.State() != "ok" || !strings.Contains(f.Note, "WordNet in "+sysDir) {
		t.Errorf("search.thesaurus %s: %+v", sysDir, f)
	}
	cfg.Search.Thesaurus = root
	got := find(Run(context.Background(), Options{Dir: root, Config: cfg, RepoErr: gitstore.ErrNoRepo, Provider: "none"}), "thesaurus")
	if len(got) != 1 || !strings.Contains(got[0].Problem, "holds no WordNet database") || !strings.Contains(got[0].Fix, "search.thesaurus") {
		t.Errorf("search.thesaurus a folder without WordNet: %+v", got)
	}
}
