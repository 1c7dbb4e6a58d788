package thesaurus

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memoryd/memoryd/internal/needtool"
)

// synsetSpec is one synset of a test database: its words, and pointers
// by symbol to other synsets of the same part, by index.
type synsetSpec struct {
	words []string
	ptrs  [][2]string // symbol, "part:index" or "part:index:src:dst"
}

// writeDB writes a WordNet database in wndb(5)'s format to a new folder:
// data and index files for the parts given, with the license header
// lines the real files start with, and the exception lists.
func writeDB(t *testing.T, parts map[string][]synsetSpec, exc map[string][]string) string {
	t.Helper()
	dir := t.TempDir()
	header := "  1 This is a test database, written by the test.  \n  2 Its lines start with spaces, as the license's do.  \n"
	letter := map[string]string{"noun": "n", "verb": "v", "adj": "a"}
	// The offsets have a fixed width, so each line's length is known
	// before its offset is: two passes.
	offsets := map[string][]int{}
	lines := func(name string, specs []synsetSpec) []string {
		var out []string
		for i, s := range specs {
			off := 0
			if o := offsets[name]; o != nil {
				off = o[i]
			}
			f := []string{fmt.Sprintf("%08d", off), "03", letter[name], fmt.Sprintf("%02x", len(s.words))}
			for _, w := range s.words {
				f = append(f, w, "0")
			}
			f = append(f, fmt.Sprintf("%03d", len(s.ptrs)))
			for _, p := range s.ptrs {
				to := strings.Split(p[1], ":")
				var idx int
				fmt.Sscan(to[1], &idx)
				toOff := 0
				if o := offsets[to[0]]; o != nil {
					toOff = o[idx]
				}
				st := "0000"
				if len(to) == 4 {
					st = to[2] + to[3]
				}
				f = append(f, p[0], fmt.Sprintf("%08d", toOff), letter[to[0]], st)
			}
			out = append(out, strings.Join(f, " ")+" | a gloss, with a | bar in it  ")
		}
		return out
	}
	for name, specs := range parts {
		off := len(header)
		var o []int
		for _, l := range lines(name, specs) {
			o = append(o, off)
			off += len(l) + 1
		}
		offsets[name] = o // the widths do not depend on the offsets
	}
	for name, specs := range parts {
		data := header + strings.Join(lines(name, specs), "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, "data."+name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		// index: each lemma's synsets, in the order of the data file.
		byLemma := map[string][]int{}
		for i, s := range specs {
			for _, w := range s.words {
				l := strings.ToLower(w)
				byLemma[l] = append(byLemma[l], offsets[name][i])
			}
		}
		var idx []string
		for l, offs := range byLemma {
			f := []string{l, letter[name], fmt.Sprint(len(offs)), "1", "@", fmt.Sprint(len(offs)), "0"}
			for _, o := range offs {
				f = append(f, fmt.Sprintf("%08d", o))
			}
			idx = append(idx, strings.Join(f, " ")+"  ")
		}
		sort.Strings(idx)
		if err := os.WriteFile(filepath.Join(dir, "index."+name), []byte(header+strings.Join(idx, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, lines := range exc {
		sort.Strings(lines)
		if err := os.WriteFile(filepath.Join(dir, name+".exc"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testDB is a small database: herbs, a doctor, eating.
func testDB(t *testing.T) *Thesaurus {
	t.Helper()
	dir := writeDB(t, map[string][]synsetSpec{
		"noun": {
			0: {words: []string{"herb", "herbaceous_plant"}, ptrs: [][2]string{{"~", "noun:1"}, {"~", "noun:2"}}},
			1: {words: []string{"coriander", "Chinese_parsley", "cilantro"}, ptrs: [][2]string{{"@", "noun:0"}}},
			2: {words: []string{"mint"}, ptrs: [][2]string{{"@", "noun:0"}, {"~", "noun:3"}}},
			3: {words: []string{"peppermint"}, ptrs: [][2]string{{"@", "noun:2"}, {"~", "noun:4"}}},
			4: {words: []string{"candy_mint", "humbug"}, ptrs: [][2]string{{"@", "noun:3"}}},
			5: {words: []string{"doctor", "doc", "physician", "MD"}},
			6: {words: []string{"eater", "feeder"}, ptrs: [][2]string{{"+", "verb:0:01:01"}}},
		},
		"verb": {
			0: {words: []string{"eat"}, ptrs: [][2]string{{"+", "noun:6:01:01"}, {"~", "verb:1"}}},
			1: {words: []string{"nibble", "pick"}, ptrs: [][2]string{{"@", "verb:0"}}},
		},
	}, map[string][]string{"verb": {"ate eat", "eaten eat"}, "noun": {"mice mouse"}})
	th, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { th.Close() })
	return th
}

func TestRelated(t *testing.T) {
	th := testDB(t)
	for _, c := range []struct {
		word      string
		want, not []string
	}{
		// Narrower words two levels down, not three; words of several
		// parts left out; the word itself left out.
		{"herb", []string{"coriander", "cilantro", "mint", "peppermint"}, []string{"herb", "humbug", "chinese_parsley", "candy_mint"}},
		{"herbs", []string{"herb", "coriander"}, nil}, // the base form first
		{"physician", []string{"doctor", "doc", "md"}, []string{"physician"}},
		// An irregular form, the verb's narrower words and the noun derived
		// from the word itself.
		{"eaten", []string{"eat", "nibble", "pick", "eater"}, []string{"feeder"}},
		{"eats", []string{"eat"}, nil},
		{"eating", []string{"eat"}, nil},
		{"coriander", []string{"cilantro"}, []string{"herb"}}, // broader words are not brought
	} {
		got, _ := th.Related(c.word, 100)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("Related(%q) = %q, want %q in it", c.word, got, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("Related(%q) = %q, want no %q", c.word, got, w)
			}
		}
	}
	if got := slices.Index(mustRelated(th, "herb", 100), "coriander"); got < 0 || got > slices.Index(mustRelated(th, "herb", 100), "peppermint") {
		t.Errorf("Related(herb) = %q: the nearer words must come first", mustRelated(th, "herb", 100))
	}
	for _, w := range []string{"dployment", "mice", "", "zzz", "a b", "herb\n"} {
		if got, _ := th.Related(w, 100); len(got) > 0 {
			t.Errorf("Related(%q) = %q, want nothing", w, got)
		}
	}
	// The budget bounds the synsets read.
	if got, read := th.Related("herb", 1); read != 1 || slices.Contains(got, "coriander") {
		t.Errorf("Related(herb, 1) = %q, read %d: want one synset read, none of its narrower words", got, read)
	}
	if !th.Knows("eaten") || !th.Knows("herbs") || th.Knows("dployment") {
		t.Error("Knows: want eaten and herbs known, dployment not")
	}
}

func mustRelated(th *Thesaurus, w string, budget int) []string {
	got, _ := th.Related(w, budget)
	return got
}

// TestFindLine searches a sorted file for every key it has and for keys
// between them, before the first and after the last.
func TestFindLine(t *testing.T) {
	var keys []string
	for i := range 5000 {
		keys = append(keys, fmt.Sprintf("k%05d", i*2))
	}
	var b strings.Builder
	b.WriteString("  1 header line  \n  2 another  \n")
	for i, k := range keys {
		pad := i * 7 % 23
		if i%97 == 0 {
			pad = 300 + i%700
		}
		b.WriteString(k + " " + strings.Repeat("x", pad) + "\n")
	}
	body := b.String()
	f := []byte(body)
	for _, k := range keys {
		if line, err := findLine(f, k); err != nil || lineKey([]byte(line)) != k {
			t.Fatalf("findLine(%q) = %q, %v", k, line, err)
		}
	}
	for _, k := range []string{"k00001", "k09999", "k10000", "a", "z", "k", "", "1", "  1"} {
		if line, err := findLine(f, k); err == nil {
			t.Errorf("findLine(%q) = %q, want not found", k, line)
		}
	}
}

// TestMalformed reads a database whose lines are cut and garbled: no
// panic, and nothing from the broken lines.
func TestMalformed(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"index.noun": "herb n 2 1 @ 2 0 00000000 99999999\nmint n x\nsage n 1 0 1 0\n",
		"data.noun":  "00000000 03 n zz herb 0\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	th, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	for _, w := range []string{"herb", "mint", "sage"} {
		if got, _ := th.Related(w, 100); len(got) > 0 {
			t.Errorf("Related(%q) = %q, want nothing from broken lines", w, got)
		}
	}
	if _, err := Open(t.TempDir()); err == nil {
		t.Error("Open of an empty folder: want an error")
	}
}

// TestSystemWordNet reads the WordNet database installed on the system
// (.ci/run installs Debian's wordnet-base).
func TestSystemWordNet(t *testing.T) {
	th := Find()
	if th == nil {
		needtool.Missing(t, "WordNet", "not in $WNSEARCHDIR nor "+strings.Join(Dirs, ", "),
			"apt-get install wordnet-base (.ci/run does)")
	}
	defer th.Close()
	for w, want := range map[string]string{"herb": "coriander", "physician": "doctor", "pills": "tablet",
		"vacation": "holiday", "airplanes": "plane", "race": "marathon"} {
		if got, _ := th.Related(w, 1500); !slices.Contains(got, want) {
			t.Errorf("Related(%q) = %q, want %q in it", w, got, want)
		}
	}
	if th.Knows("dployment") || !th.Knows("eaten") {
		t.Error("Knows: want eaten known, dployment not")
	}
}

// TestDefaultLooksAgain: a process that found no WordNet finds one
// installed later, once retryAfter has passed, and keeps it.
func TestDefaultLooksAgain(t *testing.T) {
	savedDirs, savedT, savedLooked, savedSetting := Dirs, defaultT, defaultLooked, defaultSetting
	defer func() { Dirs, defaultT, defaultLooked, defaultSetting = savedDirs, savedT, savedLooked, savedSetting }()
	defaultSetting = ""
	dir := t.TempDir()
	Dirs, defaultT, defaultLooked = nil, nil, time.Time{}
	t.Setenv("WNSEARCHDIR", dir)
	if Default() != nil {
		t.Fatal("Default found a database in an empty folder")
	}
	src := testDB(t).Dir()
	for _, name := range []string{"index.noun", "data.noun"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if Default() != nil {
		t.Fatal("Default looked again before retryAfter")
	}
	defaultLooked = defaultLooked.Add(-retryAfter)
	th := Default()
	if th == nil || th.Dir() != dir {
		t.Fatalf("Default after retryAfter = %v, want the database in %s", th, dir)
	}
	if got, _ := th.Related("herb", 10); !slices.Contains(got, "coriander") {
		t.Errorf("Related(herb) = %q", got)
	}
	th.Close()
}

// TestConfigure: Off uses no thesaurus even where one is installed, a
// folder that one alone, "" the usual folders.
func TestConfigure(t *testing.T) {
	savedDirs, savedT, savedLooked, savedSetting := Dirs, defaultT, defaultLooked, defaultSetting
	defer func() { Dirs, defaultT, defaultLooked, defaultSetting = savedDirs, savedT, savedLooked, savedSetting }()
	db := testDB(t).Dir()
	t.Setenv("WNSEARCHDIR", db)
	Configure("")
	if th := Default(); th == nil || th.Dir() != db {
		t.Fatalf("Configure(\"\"): Default() = %v, want the database of $WNSEARCHDIR", th)
	}
	Configure(Off)
	if th := Default(); th != nil {
		t.Errorf("Configure(Off): Default() = %s, want none", th.Dir())
	}
	other := t.TempDir()
	Configure(other)
	if th := Default(); th != nil {
		t.Errorf("Configure(%s), a folder without WordNet: Default() = %s, want none", other, th.Dir())
	}
	Configure(db)
	if th := Default(); th == nil || th.Dir() != db {
		t.Errorf("Configure(%s): Default() = %v", db, th)
	}
}
