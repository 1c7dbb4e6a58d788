package install

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/needtool"
)

// TestSystemdUnitVerifies runs systemd's own checker over the rendered unit.
// The binary is a real executable at a path with a space and a '%m'
// specifier: if either were not escaped, systemd would look for another file
// and report it missing.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze := needtool.Path(t, "systemd-analyze")
	root := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "my tools", "100%m memoryd")
	copyFile(t, self, bin)
	spec := Spec{
		Binary:     bin,
		ConfigPath: filepath.Join(root, `cfg "quoted" $HOME`, "config.yaml"),
		Path:       "/usr/local/bin:/usr/bin:/bin:" + filepath.Join(root, "a dir with 50% $x"),
	}
	unitDir := filepath.Join(root, "config", "systemd", "user")
	unit := filepath.Join(unitDir, UnitName)
	writeFile(t, unit, string(RenderSystemdUnit(spec)), 0o644)

	runtime := filepath.Join(root, "runtime")
	mustMkdir(t, runtime)
	if err := os.Chmod(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(analyze, "verify", "--user", unit)
	cmd.Dir = root
	cmd.Env = []string{"HOME=" + filepath.Join(root, "home"), "XDG_RUNTIME_DIR=" + runtime,
		"XDG_CONFIG_HOME=" + filepath.Join(root, "config"), "PATH=/usr/bin:/bin", "SYSTEMD_LOG_LEVEL=notice"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 || stdout.Len() > 0 {
		t.Fatalf("systemd-analyze verify: %v\nstdout: %s\nstderr: %s\nunit:\n%s", err, &stdout, &stderr, RenderSystemdUnit(spec))
	}

	// The checker must be able to fail: a missing binary is reported.
	spec.Binary = filepath.Join(root, "missing")
	writeFile(t, unit, string(RenderSystemdUnit(spec)), 0o644)
	stderr.Reset()
	env := cmd.Env
	cmd = exec.Command(analyze, "verify", "--user", unit)
	cmd.Dir, cmd.Env, cmd.Stderr = root, env, &stderr
	if err := cmd.Run(); err == nil && stderr.Len() == 0 {
		t.Fatal("systemd-analyze accepted a unit whose binary is missing")
	}
}

func TestRenderSystemdUnit(t *testing.T) {
	unit := string(RenderSystemdUnit(Spec{Binary: "/opt/memoryd", ConfigPath: "/home/u/.config/memoryd/config.yaml", Path: "/usr/bin:/bin"}))
	for _, want := range []string{
		"ExecStart=/opt/memoryd run --config /home/u/.config/memoryd/config.yaml\n",
		"Environment=\"PATH=/usr/bin:/bin\"\n",
		"Restart=on-failure\n", "RestartSec=5\n", "StandardOutput=journal\n",
		"[Install]\nWantedBy=default.target\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	if strings.Contains(unit, "multi-user.target") {
		t.Error("a user unit must not want multi-user.target")
	}
	if !bytes.Equal(RenderSystemdUnit(Spec{Binary: "/a"}), RenderSystemdUnit(Spec{Binary: "/a"})) {
		t.Error("rendering is not deterministic")
	}
	for in, want := range map[string]string{
		"/plain/path":   "/plain/path",
		"/with space":   `"/with space"`,
		"/100%":         "/100%%",
		"/$HOME":        "/$$HOME",
		`/q"b\s`:        `"/q\"b\\s"`,
		"/line\nbreak":  `"/line\nbreak"`,
		"/semi;colon":   `"/semi;colon"`,
		"/tab\tin path": `"/tab\x09in path"`,
	} {
		if got := systemdWord(in); got != want {
			t.Errorf("systemdWord(%q) = %s, want %s", in, got, want)
		}
	}
}

// plist is the subset of a property list the launchd test reads: a dict of
// keys and values, values being strings, booleans, integers, arrays or dicts.
type plistValue struct {
	Kind  string
	Text  string
	Items []plistValue          // array
	Dict  map[string]plistValue // dict
}

func parsePlist(t *testing.T, data []byte) plistValue {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("plist: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "plist" {
			v, end := readPlistValue(t, dec)
			if end {
				t.Fatal("empty plist")
			}
			return v
		}
	}
}

// readPlistValue reads the next value, or reports end=true at a closing tag.
func readPlistValue(t *testing.T, dec *xml.Decoder) (v plistValue, end bool) {
	t.Helper()
	for {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("plist: %v", err)
		}
		switch tok := tok.(type) {
		case xml.EndElement:
			return v, true
		case xml.StartElement:
			v.Kind = tok.Name.Local
			switch v.Kind {
			case "dict":
				v.Dict = map[string]plistValue{}
				for {
					k, end := readPlistValue(t, dec)
					if end {
						return v, false
					}
					if k.Kind != "key" {
						t.Fatalf("plist dict: want key, got %s", k.Kind)
					}
					val, end := readPlistValue(t, dec)
					if end {
						t.Fatalf("plist dict: key %s without value", k.Text)
					}
					v.Dict[k.Text] = val
				}
			case "array":
				for {
					item, end := readPlistValue(t, dec)
					if end {
						return v, false
					}
					v.Items = append(v.Items, item)
				}
			default:
				var s string
				if err := dec.DecodeElement(&s, &tok); err != nil {
					t.Fatalf("plist %s: %v", v.Kind, err)
				}
				v.Text = s
				return v, false
			}
		}
	}
}

func TestRenderLaunchdPlist(t *testing.T) {
	spec := Spec{
		Binary:     "/Users/a&b/bin/memoryd",
		ConfigPath: "/Users/a&b/Library/Application Support/memoryd/<config>.yaml",
		Path:       "/opt/homebrew/bin:/usr/bin:/bin",
		LogDir:     "/Users/a&b/Library/Logs/memoryd",
	}
	root := parsePlist(t, RenderLaunchdPlist(spec))
	d := root.Dict
	if root.Kind != "dict" || d["Label"].Text != Label {
		t.Fatalf("label: %+v", root)
	}
	var args []string
	for _, a := range d["ProgramArguments"].Items {
		args = append(args, a.Text)
	}
	if want := []string{spec.Binary, "run", "--config", spec.ConfigPath}; strings.Join(args, "|") != strings.Join(want, "|") {
		t.Errorf("ProgramArguments = %q, want %q", args, want)
	}
	if got := d["EnvironmentVariables"].Dict["PATH"].Text; got != spec.Path {
		t.Errorf("PATH = %q", got)
	}
	if d["RunAtLoad"].Kind != "true" {
		t.Errorf("RunAtLoad = %+v", d["RunAtLoad"])
	}
	if ka := d["KeepAlive"]; ka.Kind != "dict" || ka.Dict["SuccessfulExit"].Kind != "false" {
		t.Errorf("KeepAlive = %+v", ka)
	}
	for _, key := range []string{"StandardOutPath", "StandardErrorPath"} {
		if got := d[key].Text; got != filepath.Join(spec.LogDir, LogFile) {
			t.Errorf("%s = %q", key, got)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(to))
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
