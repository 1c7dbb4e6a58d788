package verdicts

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSaveOpenRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a, b, c := KeyOf(IndexLine, "a"), KeyOf(IndexLine, "b"), KeyOf(IndexLine, "c")
	s := Open(dir, "v")
	if s.Clean(a) {
		t.Fatal("a new set holds a key")
	}
	s.Add(a)
	s.Add(b)
	if !s.Clean(a) || !s.Clean(b) || s.Clean(c) {
		t.Fatal("Clean after Add: want a and b, not c")
	}
	if err := s.Save(IndexLine); err != nil {
		t.Fatal(err)
	}
	s2 := Open(dir, "v")
	if !s2.Clean(a) || !s2.Clean(b) || s2.Clean(c) {
		t.Fatal("Clean after Save and Open: want a and b, not c")
	}
	// A process that used only a and added c, over every text: b is gone
	// from the folder and dropped.
	s2b := Open(dir, "v")
	s2b.Clean(a)
	s2b.Add(c)
	if err := s2b.Save(IndexLine); err != nil {
		t.Fatal(err)
	}
	if s3 := Open(dir, "v"); !s3.Clean(a) || s3.Clean(b) || !s3.Clean(c) {
		t.Fatal("Save(IndexLine) keeps what this process used (a, c) and drops b")
	}
	// Without all, the file's other keys stay.
	s4 := Open(dir, "v")
	s4.Add(b)
	if err := s4.Save(); err != nil {
		t.Fatal(err)
	}
	if s5 := Open(dir, "v"); !s5.Clean(a) || !s5.Clean(b) || !s5.Clean(c) {
		t.Fatal("Save() keeps the file's keys and adds b")
	}
	// Dropping the unused keys of one check keeps the other checks' keys.
	p := KeyOf(Planted, "p")
	s6 := Open(dir, "v")
	s6.Add(p)
	if err := s6.Save(); err != nil {
		t.Fatal(err)
	}
	s7 := Open(dir, "v")
	s7.Add(KeyOf(IndexLine, "d"))
	if err := s7.Save(IndexLine); err != nil {
		t.Fatal(err)
	}
	if s8 := Open(dir, "v"); !s8.Clean(p) || s8.Clean(a) {
		t.Fatal("Save(IndexLine) must drop unused IndexLine keys and keep Planted ones")
	}
}

func TestKeyOfSeparatesTexts(t *testing.T) {
	if KeyOf(Planted, "ab", "c") == KeyOf(Planted, "a", "bc") || KeyOf(Planted, "a") == KeyOf(Screen, "a") || KeyOf(Screen, "a")[0] != byte(Screen) {
		t.Fatal("keys of different texts or checks collide")
	}
}

// TestUnusableFileIsIgnored: a torn, corrupt or foreign file gives an
// empty set (never a key it did not hold) and is replaced by Save.
func TestUnusableFileIsIgnored(t *testing.T) {
	dir := t.TempDir()
	a := KeyOf(IndexLine, "a")
	s := Open(dir, "v")
	s.Add(a)
	if err := s.Save(IndexLine); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, "v"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(s.header)+3] ^= 1
	foreign := append([]byte("memoryd verdicts 1 \"/other/memoryd\" 1 2\n"), good[len(s.header):]...)
	for name, data := range map[string][]byte{
		"empty": nil, "torn": good[:len(good)-5], "flipped": flipped, "foreign binary": foreign,
		"no checksum": good[:len(good)-sumSize], "garbage": []byte("\xff\xfe not a verdicts file"),
	} {
		if err := os.WriteFile(filepath.Join(dir, "v"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		s := Open(dir, "v")
		if s.Clean(a) {
			t.Errorf("%s: the set holds a key from an unusable file", name)
		}
		s.Add(a)
		if err := s.Save(IndexLine); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !Open(dir, "v").Clean(a) {
			t.Errorf("%s: Save did not replace the unusable file", name)
		}
	}
}

func TestNilSetRemembersNothing(t *testing.T) {
	var s *Set
	s.Add(KeyOf(IndexLine, "a"))
	if s.Clean(KeyOf(IndexLine, "a")) || s.Save(IndexLine) != nil {
		t.Fatal("a nil set must remember nothing and save nothing")
	}
	if Open("", "v") != nil {
		t.Fatal("Open without a state folder: want nil")
	}
}

// BenchmarkFirstClean is the cost a process pays to read a set of 30,000
// keys (10,000 facts' three checks) on its first look-up.
func BenchmarkFirstClean(b *testing.B) {
	dir := b.TempDir()
	s := Open(dir, "v")
	for i := range 30000 {
		s.Add(KeyOf(Check(1+i%3), string(rune(i)), "text"))
	}
	if err := s.Save(); err != nil {
		b.Fatal(err)
	}
	k := KeyOf(Screen, "absent")
	for b.Loop() {
		Open(dir, "v").Clean(k)
	}
}
