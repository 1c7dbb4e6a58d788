package index

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// genSnapshot returns n parsed-looking memories made from r: every type and
// none, descriptions from empty to very long, up to maxProjects projects
// (and a few invalid project names), some pinned, dates and non-dates.
func genSnapshot(r *rand.Rand, n, maxProjects int) Snapshot {
	types := append(slices.Clone(Types), "", "misc")
	projects := r.IntN(maxProjects + 1)
	var s Snapshot
	for i := range n {
		typ := types[r.IntN(len(types))]
		m := &Memory{Type: typ, Name: fmt.Sprintf("fact-%d", i)}
		m.File = m.Name + ".md"
		if typ != "" {
			m.File = typ + "-" + m.File
		}
		switch k := r.IntN(20); {
		case k == 0:
			m.Description = strings.Repeat("very long description ", 20+r.IntN(100))
		case k < 3:
			m.Description = ""
		default:
			m.Description = strings.Repeat("word ", 1+r.IntN(30))
		}
		if projects > 0 && r.IntN(5) < 3 {
			m.Project = fmt.Sprintf("proj-%d", r.IntN(projects))
		}
		if r.IntN(50) == 0 {
			m.Project = "Not A Slug"
		}
		m.Pinned = r.IntN(60) == 0
		switch r.IntN(4) {
		case 0:
		case 1:
			m.Updated = "someday"
		default:
			m.Updated = fmt.Sprintf("2025-%d-%d", 1+r.IntN(12), 1+r.IntN(28))
		}
		s.Memories = append(s.Memories, m)
	}
	r.Shuffle(len(s.Memories), func(i, j int) { s.Memories[i], s.Memories[j] = s.Memories[j], s.Memories[i] })
	if r.IntN(3) == 0 {
		s.Conflicts = r.IntN(3)
		s.Unreadable = []Unreadable{{File: "broken.md"}}
	}
	return s
}

var moreRE = regexp.MustCompile(`^> (\d+) more memor(?:y is|ies are) not listed here \(([a-z0-9 ,]+)\) — memoryd search WORDS, or the memory_search tool\.$`)

// listing is what one index file shows.
type listing struct {
	files    []string       // memory files listed, in order
	projects []string       // project slugs listed
	more     map[string]int // the "more" line's counts by section name
	moreN    int
}

func readListing(t *testing.T, data []byte) listing {
	t.Helper()
	l := listing{more: map[string]int{}}
	inProjects := false
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "## "):
			inProjects = line == "## Projects"
		case strings.HasPrefix(line, "- ["):
			_, rest, _ := strings.Cut(line, "](")
			target, _, _ := strings.Cut(rest, ")")
			if inProjects {
				l.projects = append(l.projects, strings.TrimSuffix(strings.TrimPrefix(target, "MEMORY."), ".md"))
			} else {
				l.files = append(l.files, target)
			}
		case strings.HasPrefix(line, "> ") && strings.Contains(line, " more memor"):
			m := moreRE.FindStringSubmatch(line)
			if m == nil || i != len(lines)-1 {
				t.Fatalf("bad or misplaced more line %q", line)
			}
			l.moreN, _ = strconv.Atoi(m[1])
			for part := range strings.SplitSeq(m[2], ", ") {
				name, n, _ := strings.Cut(part, " ")
				l.more[name], _ = strconv.Atoi(n)
			}
		}
	}
	return l
}

// checkIndexes checks every index file BuildAll makes for s within b.
func checkIndexes(t *testing.T, s Snapshot, b Budget) map[string][]byte {
	t.Helper()
	all := BuildAll(s, b)
	scopes := map[string][]*Memory{}
	for _, m := range s.Memories {
		scopes[m.Scope()] = append(scopes[m.Scope()], m)
	}
	for slug := range scopes {
		name := IndexFile
		if slug != "" {
			name = ProjectIndexFile(slug)
		}
		if all[name] == nil {
			t.Fatalf("no %s for %d memories", name, len(scopes[slug]))
		}
	}
	if len(all) != len(scopes)+1 && !(len(all) == len(scopes) && scopes[""] != nil) {
		t.Fatalf("%d index files for %d scopes: %v", len(all), len(scopes), keys(all))
	}
	for name, data := range all {
		slug := ""
		if name != IndexFile {
			slug, _ = ProjectIndexSlug(name)
		}
		checkIndex(t, name, data, scopes, slug, b)
		if got := BuildIndex(s, slug, b); string(got) != string(data) {
			t.Fatalf("%s: BuildIndex differs from BuildAll", name)
		}
	}
	return all
}

func checkIndex(t *testing.T, name string, data []byte, scopes map[string][]*Memory, slug string, b Budget) {
	t.Helper()
	l := readListing(t, data)
	mine := map[string]*Memory{}
	for _, m := range scopes[slug] {
		mine[m.File] = m
	}
	listed := map[string]bool{}
	for _, f := range l.files {
		if mine[f] == nil {
			t.Fatalf("%s lists %s, which is not one of its facts", name, f)
		}
		if listed[f] {
			t.Fatalf("%s lists %s twice", name, f)
		}
		listed[f] = true
	}
	want := map[string]int{}
	allPinned := true
	for _, m := range scopes[slug] {
		if listed[m.File] {
			allPinned = allPinned && m.Pinned
			continue
		}
		if m.Pinned {
			t.Fatalf("%s leaves out pinned %s", name, m.File)
		}
		want[strings.ToLower(sectionTitles[section(m.Type)])]++
	}
	if slug == "" {
		for _, p := range l.projects {
			if len(scopes[p]) == 0 || p == "" {
				t.Fatalf("%s lists project %q, which has no facts", name, p)
			}
		}
		for p, mems := range scopes {
			if p != "" && !slices.Contains(l.projects, p) {
				for _, m := range mems {
					want[strings.ToLower(sectionTitles[section(m.Type)])]++
				}
			}
		}
		if !slices.IsSorted(l.projects) {
			t.Fatalf("%s: projects not sorted: %v", name, l.projects)
		}
	}
	total := 0
	for _, n := range want {
		total += n
	}
	if total != l.moreN || !mapsEqual(want, l.more) {
		t.Fatalf("%s: more line says %d %v; left out %d %v\n%s", name, l.moreN, l.more, total, want, data)
	}
	// Listed in the usual order: by section, then by file name.
	if !slices.IsSortedFunc(l.files, func(a, b string) int {
		if c := int(section(mine[a].Type)) - int(section(mine[b].Type)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	}) {
		t.Fatalf("%s: entries out of order: %v", name, l.files)
	}
	if over, lines, size := b.Over(data); over && (!allPinned || len(l.projects) > 0) {
		t.Fatalf("%s is %d lines, %d bytes, over %+v, with more than pinned facts listed:\n%s", name, lines, size, b, data)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestBudgetProperties builds random stores within random budgets and checks
// every index file: within both limits (only pinned facts may push it over),
// every pinned fact listed, only its own facts, the "more" line counting
// exactly what was left out, by type.
func TestBudgetProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 300 {
		s := genSnapshot(r, r.IntN(400), 1+r.IntN(40))
		b := Budget{Lines: 1 + r.IntN(250), Bytes: 1 + r.IntN(20_000)}
		if i%5 == 0 {
			b = Budget{}
		}
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			checkIndexes(t, s, b)
			checkContext(t, s, b)
		})
	}
}

func TestBudgetLargeStore(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	s := genSnapshot(r, 5000, 120)
	for _, m := range s.Memories {
		m.Pinned = false
	}
	all := checkIndexes(t, s, Budget{})
	for name, data := range all {
		if over, lines, size := DefaultBudget().Over(data); over {
			t.Fatalf("%s: %d lines, %d bytes", name, lines, size)
		}
	}
	if n := len(readListing(t, all[IndexFile]).projects); n == 0 {
		t.Fatal("MEMORY.md lists no project")
	}
}

// TestBudgetPriority: with lines of one length, what is listed is a prefix
// of the priority order — pinned, section, newest updated, file name.
func TestBudgetPriority(t *testing.T) {
	var s Snapshot
	add := func(file, typ, updated string, pinned bool) {
		s.Memories = append(s.Memories, &Memory{File: file, Type: typ, Name: "n", Description: "d", Updated: updated, Pinned: pinned})
	}
	add("a1.md", "reference", "2025-01-01", true)
	add("b1.md", "user", "", false)
	add("b2.md", "user", "2024-12-31", false)
	add("b3.md", "user", "2025-1-2", false)
	add("c1.md", "feedback", "2026-01-01", false)
	add("c2.md", "feedback", "2026-01-01", false)
	add("d1.md", "", "2030-01-01", false)
	order := []string{"a1.md", "b3.md", "b2.md", "b1.md", "c1.md", "c2.md", "d1.md"}
	for n := 1; n <= len(order); n++ {
		var want []string
		for _, f := range order[:n] {
			want = append(want, f)
		}
		found := false
		for lines := 1; lines < 40 && !found; lines++ {
			l := readListing(t, BuildIndex(s, "", Budget{Lines: lines, Bytes: 100_000}))
			got := slices.Clone(l.files)
			slices.Sort(got)
			slices.Sort(want)
			found = slices.Equal(got, want)
			if !found && len(got) > n {
				t.Fatalf("with %d lines: listed %v before %v", lines, got, want)
			}
		}
		if !found {
			t.Fatalf("no budget lists exactly %v", want)
		}
	}
}

// checkContext checks Context for each project of s: MEMORY.md and the
// project's index within b together, over it only with nothing but pinned
// facts listed.
func checkContext(t *testing.T, s Snapshot, b Budget) {
	t.Helper()
	for _, p := range s.Projects() {
		out := Context(s, p.Slug, b, false)
		global, proj, ok := strings.Cut(string(out), "\n\n# Memory — "+p.Slug+"\n")
		if !ok {
			t.Fatalf("context for %s has no project part:\n%s", p.Slug, out)
		}
		over, lines, size := b.Over(out)
		if !over {
			continue
		}
		for _, part := range []string{global + "\n", proj} {
			l := readListing(t, []byte(part))
			for _, f := range l.files {
				for _, m := range s.Memories {
					if m.File == f && !m.Pinned {
						t.Fatalf("context for %s is %d lines, %d bytes, over %+v, and lists %s", p.Slug, lines, size, b, f)
					}
				}
			}
			if len(l.projects) > 0 {
				t.Fatalf("context for %s is over %+v and lists projects", p.Slug, b)
			}
		}
	}
}
