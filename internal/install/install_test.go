package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
	"github.com/memoryd/memoryd/internal/protocol"
)

func TestInstallSystemdTwiceChangesNothing(t *testing.T) {
	e := newEnv(t, "linux")
	var out bytes.Buffer
	e.opts.Stdout = &out
	r, err := Install(context.Background(), e.opts)
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out.String())
	}
	t.Logf("install output:\n%s", out.String())
	unit := filepath.Join(e.opts.XDGConfigHome, "systemd", "user", UnitName)
	if got := readFile(t, unit); got != string(RenderSystemdUnit(e.opts.Spec())) {
		t.Fatalf("unit file:\n%s", got)
	}
	wantCalls := []string{
		"systemctl --user daemon-reload",
		"systemctl --user enable memoryd.service",
		"systemctl --user start memoryd.service",
	}
	if got := mutating(e.calls()); !reflect.DeepEqual(got, wantCalls) {
		t.Errorf("first install ran %q, want %q", got, wantCalls)
	}
	if !r.Changed() {
		t.Error("first install reports no change")
	}
	if cfg := readFile(t, e.opts.ConfigPath); !strings.Contains(cfg, "memory_dir: "+e.opts.MemoryDir+"\n") {
		t.Errorf("config file:\n%s", cfg)
	}
	if got := readFile(t, filepath.Join(e.opts.MemoryDir, protocol.File)); got != string(protocol.Default) {
		t.Error("PROTOCOL.md not written")
	}
	for _, want := range []string{"journalctl --user -u memoryd -f", "loginctl enable-linger $USER"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("install output does not say %q:\n%s", want, out.String())
		}
	}

	before := e.snapshot()
	out.Reset()
	r, err = Install(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := mutating(e.calls()); len(got) != 0 {
		t.Errorf("second install ran %q", got)
	}
	if r.Changed() {
		t.Errorf("second install reports changes: %+v", r.Steps)
	}
	for _, s := range r.Steps {
		if s.Outcome != Unchanged && s.Outcome != Found {
			t.Errorf("second install: %s %s", s.What, s.Outcome)
		}
	}
	if after := e.snapshot(); !reflect.DeepEqual(before, after) {
		t.Errorf("second install changed files:\nbefore %v\nafter  %v", before, after)
	}
}

func TestInstallLaunchdTwiceChangesNothing(t *testing.T) {
	e := newEnv(t, "darwin")
	if _, err := Install(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	plist := filepath.Join(e.opts.Home, "Library", "LaunchAgents", Label+".plist")
	if got := readFile(t, plist); got != string(RenderLaunchdPlist(e.opts.Spec())) {
		t.Fatalf("plist:\n%s", got)
	}
	if fi, err := os.Stat(filepath.Join(e.opts.Home, "Library", "Logs", "memoryd")); err != nil || !fi.IsDir() {
		t.Errorf("log folder not created: %v", err)
	}
	domain := "gui/" + strconv.Itoa(os.Getuid())
	want := []string{"launchctl bootstrap " + domain + " " + plist}
	if got := mutating(e.calls()); !reflect.DeepEqual(got, want) {
		t.Errorf("first install ran %q, want %q", got, want)
	}
	before := e.snapshot()
	r, err := Install(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := mutating(e.calls()); len(got) != 0 || r.Changed() {
		t.Errorf("second install ran %q, changed=%v", got, r.Changed())
	}
	if after := e.snapshot(); !reflect.DeepEqual(before, after) {
		t.Error("second install changed files")
	}

	// A changed plist is reloaded; launchd may refuse the bootstrap right
	// after the bootout a couple of times.
	writeFile(t, filepath.Join(e.state, "bootstrap-fails"), "2", 0o644)
	e.opts.Path += ":/usr/local/bin"
	if _, err := Install(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	boot := "launchctl bootstrap " + domain + " " + plist
	want = []string{"launchctl bootout " + domain + "/" + Label, boot, boot, boot}
	if got := mutating(e.calls()); !reflect.DeepEqual(got, want) {
		t.Errorf("install with a new PATH ran %q, want %q", got, want)
	}
}

func TestInstallRestartsWhenUnitChanges(t *testing.T) {
	e := newEnv(t, "linux")
	if _, err := Install(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	e.calls()
	e.opts.Path += ":/usr/local/bin"
	r, err := Install(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"systemctl --user daemon-reload", "systemctl --user restart memoryd.service"}
	if got := mutating(e.calls()); !reflect.DeepEqual(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}
	if i := slices.IndexFunc(r.Steps, func(s Step) bool { return s.What == "service file" }); r.Steps[i].Outcome != Updated {
		t.Errorf("service file step: %+v", r.Steps[i])
	}
	unit := readFile(t, filepath.Join(e.opts.XDGConfigHome, "systemd", "user", UnitName))
	if !strings.Contains(unit, ":/usr/local/bin\"\n") {
		t.Errorf("new PATH not in unit:\n%s", unit)
	}
}

func TestUninstallKeepsMemory(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			e := newEnv(t, goos)
			if _, err := Install(context.Background(), e.opts); err != nil {
				t.Fatal(err)
			}
			fact := filepath.Join(e.opts.MemoryDir, "user-email.md")
			writeFile(t, fact, "---\nname: email\ndescription: x\nmetadata:\n  type: user\n---\nx\n", 0o644)
			gitRun(t, filepath.Dir(e.opts.MemoryDir), "add", "-A")
			e.calls()
			file, _ := ServiceFile(e.opts)

			r, err := Uninstall(context.Background(), e.opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Errorf("service file still there: %v", err)
			}
			calls := mutating(e.calls())
			if goos == "linux" && !reflect.DeepEqual(calls, []string{"systemctl --user disable --now memoryd.service", "systemctl --user daemon-reload"}) {
				t.Errorf("uninstall ran %q", calls)
			}
			if goos == "darwin" && (len(calls) != 1 || !strings.HasPrefix(calls[0], "launchctl bootout gui/")) {
				t.Errorf("uninstall ran %q", calls)
			}
			for _, p := range []string{fact, filepath.Join(e.opts.MemoryDir, protocol.File), e.opts.ConfigPath, filepath.Join(e.root, "notes", ".git", "index")} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("uninstall removed %s", p)
				}
			}
			_, list, err := OpenCodeInstructions(OpenCodeDir(e.opts.Home, e.opts.XDGConfigHome))
			if err != nil || len(list) != 0 {
				t.Errorf("opencode instructions after uninstall: %q %v", list, err)
			}
			if !r.Changed() {
				t.Error("uninstall reports no change")
			}

			r, err = Uninstall(context.Background(), e.opts)
			if err != nil || r.Changed() || len(mutating(e.calls())) != 0 {
				t.Errorf("second uninstall: err=%v steps=%+v", err, r.Steps)
			}
		})
	}
}

func TestUninstallWithoutUserManager(t *testing.T) {
	e := newEnv(t, "linux")
	if _, err := Install(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.state, "nomanager"), "", 0o644)
	r, err := Uninstall(context.Background(), e.opts)
	if !errors.Is(err, ErrNoUserManager) || !strings.Contains(err.Error(), "may run until you log out") {
		t.Fatalf("err = %v", err)
	}
	file, _ := ServiceFile(e.opts)
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Error("unit file kept")
	}
	if _, list, _ := OpenCodeInstructions(OpenCodeDir(e.opts.Home, e.opts.XDGConfigHome)); len(list) != 0 || !r.Changed() {
		t.Errorf("opencode entries kept: %q", list)
	}
}

// TestInstallWithoutUserManager: with no service manager (WSL without
// systemd, a container) install still does every other step, reports the
// service step as not done with exact advice, and fails; once a manager
// answers, the same install completes the service step.
func TestInstallWithoutUserManager(t *testing.T) {
	t.Run("stand-in", func(t *testing.T) {
		e := newEnv(t, "linux")
		writeFile(t, filepath.Join(e.state, "nomanager"), "", 0o644)
		var out bytes.Buffer
		e.opts.Stdout = &out
		r, err := Install(context.Background(), e.opts)
		if !errors.Is(err, ErrNoUserManager) || !strings.Contains(err.Error(), "No medium found") {
			t.Fatalf("err = %v", err)
		}
		assertSetUpWithoutService(t, e, r)
		for _, want := range []string{
			"not done  service        systemd memoryd.service (no per-user service manager: systemctl --user show-environment",
			"XDG_RUNTIME_DIR",
			"  " + e.opts.Binary + " run --config " + e.opts.ConfigPath + "\n",
			"tmux new-session -d -s memoryd '" + e.opts.Binary + " run --config " + e.opts.ConfigPath + "'",
			"(nohup " + e.opts.Binary + " run --config " + e.opts.ConfigPath + " >>" + filepath.Join(e.opts.Home, ".local", "state", "memoryd", "memoryd.log") + " 2>&1 &)",
			e.opts.Binary + " install --config " + e.opts.ConfigPath,
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("install output lacks %q:\n%s", want, out.String())
			}
		}
		if strings.Contains(out.String(), "wsl.conf") || strings.Contains(out.String(), "journalctl") {
			t.Errorf("advice for another situation:\n%s", out.String())
		}
		if err := Start(context.Background(), e.opts); !errors.Is(err, ErrNotInstalled) {
			t.Errorf("start: %v", err)
		}

		// Run again: still no manager, nothing changes, still a failure.
		before := e.snapshot()
		if r, err = Install(context.Background(), e.opts); !errors.Is(err, ErrNoUserManager) || r.Changed() {
			t.Errorf("second install: %v, changed %v", err, r.Changed())
		}
		if after := e.snapshot(); !reflect.DeepEqual(before, after) {
			t.Error("second install without a manager changed files")
		}

		// The manager appears (systemd turned on): the service step completes.
		os.Remove(filepath.Join(e.state, "nomanager"))
		e.calls()
		if r, err = Install(context.Background(), e.opts); err != nil {
			t.Fatalf("install with a manager: %v", err)
		}
		want := []string{"systemctl --user daemon-reload", "systemctl --user enable memoryd.service", "systemctl --user start memoryd.service"}
		if got := mutating(e.calls()); !reflect.DeepEqual(got, want) {
			t.Errorf("install with a manager ran %q, want %q", got, want)
		}
		for _, s := range r.Steps {
			if s.What == "service file" && s.Outcome != Created || s.What == "config file" && s.Outcome != Unchanged {
				t.Errorf("install with a manager: %+v", s)
			}
		}
	})
	t.Run("wsl", func(t *testing.T) {
		e := newEnv(t, "linux")
		e.opts.WSL = true
		e.opts.Path = onlyGit(t) // no systemctl at all
		var out bytes.Buffer
		e.opts.Stdout = &out
		r, err := Install(context.Background(), e.opts)
		if !errors.Is(err, ErrNoUserManager) || !strings.Contains(err.Error(), "systemctl is not on PATH") {
			t.Fatalf("err = %v", err)
		}
		assertSetUpWithoutService(t, e, r)
		for _, want := range []string{"/etc/wsl.conf", "\n         [boot]\n         systemd=true\n", "wsl --shutdown", e.opts.Binary + " install --config " + e.opts.ConfigPath} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("install output lacks %q:\n%s", want, out.String())
			}
		}
	})
	t.Run("launchd", func(t *testing.T) {
		e := newEnv(t, "darwin")
		e.opts.Path = onlyGit(t) // no launchctl
		var out bytes.Buffer
		e.opts.Stdout = &out
		r, err := Install(context.Background(), e.opts)
		if !errors.Is(err, ErrNoUserManager) {
			t.Fatalf("err = %v", err)
		}
		assertSetUpWithoutService(t, e, r)
		log := filepath.Join(e.opts.Home, "Library", "Logs", "memoryd", "memoryd.log")
		for _, want := range []string{"log in at the screen once", ">>" + log} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("install output lacks %q:\n%s", want, out.String())
			}
		}
	})
	t.Run("real systemctl", func(t *testing.T) {
		systemctl := needtool.Path(t, "systemctl")
		e := newEnv(t, "linux")
		// A session-less environment: no bus address, an empty runtime dir.
		e.opts.Path = filepath.Dir(systemctl)
		e.opts.Env = []string{"HOME=" + e.opts.Home, "XDG_RUNTIME_DIR=" + t.TempDir()}
		if _, err := Install(context.Background(), e.opts); !errors.Is(err, ErrNoUserManager) {
			t.Fatalf("err = %v", err)
		}
	})
}

// onlyGit returns a PATH holding git and nothing else.
func onlyGit(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Symlink(needtool.Path(t, "git"), filepath.Join(dir, "git")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// assertSetUpWithoutService checks that an install without a service did
// every other step: folder, config, PROTOCOL.md, OpenCode; no service file.
func assertSetUpWithoutService(t *testing.T, e *env, r Report) {
	t.Helper()
	if cfg := readFile(t, e.opts.ConfigPath); !strings.Contains(cfg, "memory_dir: "+e.opts.MemoryDir+"\n") {
		t.Errorf("config file:\n%s", cfg)
	}
	if _, err := os.Stat(filepath.Join(e.opts.MemoryDir, protocol.File)); err != nil {
		t.Errorf("PROTOCOL.md: %v", err)
	}
	_, list, err := OpenCodeInstructions(OpenCodeDir(e.opts.Home, e.opts.XDGConfigHome))
	if err != nil || !reflect.DeepEqual(list, Instructions(e.opts.MemoryDir)) {
		t.Errorf("opencode instructions: %q %v", list, err)
	}
	file, _ := ServiceFile(e.opts)
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("service file written without a manager: %v", err)
	}
	i := slices.IndexFunc(r.Steps, func(s Step) bool { return s.What == "service" })
	if i < 0 || r.Steps[i].Outcome != NotDone && r.Steps[i].Outcome != Skipped {
		t.Errorf("service step: %+v", r.Steps)
	}
}

func TestInstallNoService(t *testing.T) {
	e := newEnv(t, "linux")
	e.opts.NoService = true
	e.opts.StateHome = filepath.Join(e.root, "xdg-state")
	var out bytes.Buffer
	e.opts.Stdout = &out
	r, err := Install(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	assertSetUpWithoutService(t, e, r)
	if calls := e.calls(); len(calls) != 0 {
		t.Errorf("--no-service asked the service manager: %q", calls)
	}
	for _, want := range []string{"skipped   service", "(--no-service)", e.opts.Binary + " run --config " + e.opts.ConfigPath,
		filepath.Join(e.opts.StateHome, "memoryd", "memoryd.log")} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("install output lacks %q:\n%s", want, out.String())
		}
	}
	// Without --no-service later, the service is added.
	e.opts.NoService = false
	if _, err := Install(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	if file, _ := ServiceFile(e.opts); !strings.HasSuffix(readFile(t, file), "WantedBy=default.target\n") {
		t.Error("no unit after install without --no-service")
	}
}

func TestAdviceQuotesPaths(t *testing.T) {
	o := Options{Binary: "/opt/my tools/memoryd", ConfigPath: "/home/a'b/memoryd.yaml", Home: "/home/a'b", GOOS: "linux"}
	if got, want := o.runCommand(), `'/opt/my tools/memoryd' run --config '/home/a'\''b/memoryd.yaml'`; got != want {
		t.Errorf("runCommand = %s, want %s", got, want)
	}
	adv := selfStartAdvice(&o, "x")
	if !strings.Contains(adv, `tmux new-session -d -s memoryd ''\''/opt/my tools/memoryd'\'' run`) {
		t.Errorf("tmux line not quoted twice:\n%s", adv)
	}
}

func TestInstallRefusesUnitDirTheManagerDoesNotSearch(t *testing.T) {
	e := newEnv(t, "linux")
	e.opts.Env = []string{"HOME=" + e.opts.Home} // the manager has no XDG_CONFIG_HOME
	_, err := Install(context.Background(), e.opts)
	if !errors.Is(err, ErrUnitDir) || !strings.Contains(err.Error(), filepath.Join(e.opts.Home, ".config", "systemd", "user")) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(e.opts.MemoryDir); !os.IsNotExist(err) {
		t.Error("install changed things before failing")
	}
	e.opts.XDGConfigHome = ""
	e.opts.ConfigPath = filepath.Join(e.opts.Home, ".config", "memoryd", "config.yaml")
	if _, err := Install(context.Background(), e.opts); err != nil {
		t.Fatalf("with matching folders: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.opts.Home, ".config", "systemd", "user", UnitName)); err != nil {
		t.Error(err)
	}
}

func TestControlAndStatus(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			e := newEnv(t, goos)
			ctx := context.Background()
			st, err := Status(ctx, e.opts)
			if err != nil || st.Installed || st.Running {
				t.Fatalf("before install: %+v %v", st, err)
			}
			if _, err := Install(ctx, e.opts); err != nil {
				t.Fatal(err)
			}
			st, err = Status(ctx, e.opts)
			if err != nil || !st.Installed || !st.Current || !st.Enabled || !st.Running {
				t.Fatalf("after install: %+v %v", st, err)
			}
			if err := Stop(ctx, e.opts); err != nil {
				t.Fatal(err)
			}
			if st, _ = Status(ctx, e.opts); st.Running {
				t.Errorf("after stop: %+v", st)
			}
			if err := Start(ctx, e.opts); err != nil {
				t.Fatal(err)
			}
			if st, _ = Status(ctx, e.opts); !st.Running {
				t.Errorf("after start: %+v", st)
			}
			e.calls()
			if err := Restart(ctx, e.opts); err != nil {
				t.Fatal(err)
			}
			if got := mutating(e.calls()); len(got) != 1 || !strings.Contains(got[0], "restart") && !strings.Contains(got[0], "kickstart -k") {
				t.Errorf("restart ran %q", got)
			}
			e.opts.Binary = filepath.Join(e.root, "elsewhere", "memoryd")
			if st, _ = Status(ctx, e.opts); st.Current {
				t.Error("Status.Current with another binary")
			}
		})
	}
}

func TestInstallConfigFile(t *testing.T) {
	e := newEnv(t, "linux")
	orig := "# mine\nllm:\n  provider: none # no LLM\n"
	writeFile(t, e.opts.ConfigPath, orig, 0o600)
	if _, err := Install(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, e.opts.ConfigPath), orig+"memory_dir: "+e.opts.MemoryDir+"\n"; got != want {
		t.Errorf("config:\n%s\nwant\n%s", got, want)
	}

	other := filepath.Join(e.root, "other")
	opts := e.opts
	opts.MemoryDir = other
	_, err := Install(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "already sets memory_dir") {
		t.Errorf("conflicting memory_dir: %v", err)
	}

	// A config file that is a symlink (dotfiles) is edited where it points.
	e2 := newEnv(t, "linux")
	real := filepath.Join(e2.root, "dotfiles", "memoryd.yaml")
	writeFile(t, real, "log_level: debug", 0o600)
	mustMkdir(t, filepath.Dir(e2.opts.ConfigPath))
	if err := os.Symlink(real, e2.opts.ConfigPath); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(context.Background(), e2.opts); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(e2.opts.ConfigPath); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("symlink replaced")
	}
	if got := readFile(t, real); got != "log_level: debug\nmemory_dir: "+e2.opts.MemoryDir+"\n" {
		t.Errorf("linked config:\n%s", got)
	}
}

func TestInstallGitCheck(t *testing.T) {
	e := newEnv(t, "linux")
	e.opts.MemoryDir = filepath.Join(e.root, "loose", "memory") // no repository above
	e.opts.ConfigPath = filepath.Join(e.root, "loose-config.yaml")
	var out bytes.Buffer
	e.opts.Stdout = &out
	r, err := Install(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(r.Steps, func(s Step) bool { return s.What == "git repository" })
	if r.Steps[i].Outcome != Missing || !strings.Contains(out.String(), "--git-init") {
		t.Errorf("no repository: %+v\n%s", r.Steps[i], out.String())
	}
	e.opts.GitInit = true
	if _, err := Install(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(e.opts.MemoryDir, ".git")); err != nil || !fi.IsDir() {
		t.Fatalf("git init did not run in the memory folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.root, "loose", ".git")); !os.IsNotExist(err) {
		t.Error("git init ran in the parent")
	}
	r, err = Install(context.Background(), e.opts)
	if err != nil || r.Changed() {
		t.Errorf("third install: %v %+v", err, r.Steps)
	}
}

func TestOptionsChecked(t *testing.T) {
	e := newEnv(t, "linux")
	bad := e.opts
	bad.MemoryDir = "notes/memory"
	if _, err := Install(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "memory folder must be an absolute path") {
		t.Errorf("relative memory dir: %v", err)
	}
	bad = e.opts
	bad.Binary = filepath.Join(e.root, "missing")
	if _, err := Install(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Errorf("missing binary: %v", err)
	}
	bad = e.opts
	bad.GOOS = "plan9"
	if _, err := Install(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "plan9") {
		t.Errorf("unsupported OS: %v", err)
	}
	if len(e.calls()) != 0 {
		t.Error("bad options still ran commands")
	}
}

func TestCleanPath(t *testing.T) {
	if got := CleanPath("/usr/bin::.:bin:/usr/bin:/opt/x"); got != "/usr/bin:/opt/x" {
		t.Errorf("CleanPath = %q", got)
	}
}
