package secrets_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"

	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/secrets"
)

// The detector's corpus, generated rather than picked: a sample made from
// every rule of gitleaks' default set (the providers' key formats), the
// sentence forms people write passwords in, the ordinary notes, and the
// files memoryd itself writes (provenance, cites, session ids, hashes).
// TestDetectorCorpus prints detected/total per family and the false
// positives; docs/PERFORMANCE.md quotes it. It uses only the package's
// public API so that the same file runs against an older detector.

// corpusSeed fixes the corpus: the figures are of one corpus, run after run.
const corpusSeed = 28

type sample struct{ family, text string }

// ruleSamples makes one text per gitleaks rule that the rule's own
// expression matches: a string generated from the expression's syntax
// tree. A rule whose expression Go cannot generate for (or that needs a
// file path) has no sample. The family is the rule id's first word.
func ruleSamples(t testing.TB) []sample {
	var cfg struct {
		Rules []struct {
			ID, Regex, Path string
			Entropy         float64
		}
	}
	if err := toml.Unmarshal([]byte(config.DefaultConfig), &cfg); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(corpusSeed, 1))
	var out []sample
	for _, r := range cfg.Rules {
		re, err := regexp.Compile(r.Regex)
		if err != nil || r.Path != "" || r.Regex == "" {
			continue
		}
		parsed, _ := syntax.Parse(r.Regex, syntax.Perl)
		for try := 0; try < 50; try++ {
			var b strings.Builder
			generate(&b, parsed.Simplify(), rng)
			s := b.String()
			if re.MatchString(s) && !strings.Contains(s, "\n") && (r.Entropy == 0 || entropyOf(s) > r.Entropy+0.3) {
				family, _, _ := strings.Cut(r.ID, "-")
				out = append(out, sample{family, s})
				break
			}
		}
	}
	return out
}

// generate writes a string that re matches, choosing at random.
func generate(b *strings.Builder, re *syntax.Regexp, rng *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune, rng))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(alnum[rng.IntN(len(alnum))])
	case syntax.OpCapture:
		generate(b, re.Sub[0], rng)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, 2
		case syntax.OpPlus:
			lo, hi = 1, 3
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		if hi < 0 {
			hi = lo + 8
		}
		for n := lo + rng.IntN(hi-lo+1); n > 0; n-- {
			generate(b, re.Sub[0], rng)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			generate(b, sub, rng)
		}
	case syntax.OpAlternate:
		generate(b, re.Sub[rng.IntN(len(re.Sub))], rng)
	}
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// pickRune picks a printable ASCII rune of a class (pairs of ranges), a
// letter or digit nine times in ten when the class has them.
func pickRune(ranges []rune, rng *rand.Rand) rune {
	var words, others []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := max(ranges[i], 0x20); c <= min(ranges[i+1], 0x7e); c++ {
			if strings.ContainsRune(alnum, c) {
				words = append(words, c)
			} else {
				others = append(others, c)
			}
		}
	}
	switch {
	case len(words) > 0 && (len(others) == 0 || rng.IntN(10) > 0):
		return words[rng.IntN(len(words))]
	case len(others) > 0:
		return others[rng.IntN(len(others))]
	}
	return ranges[0]
}

func entropyOf(s string) float64 {
	counts := map[rune]float64{}
	for _, r := range s {
		counts[r]++
	}
	h, n := 0.0, float64(len([]rune(s)))
	for _, c := range counts {
		p := c / n
		h -= p * math.Log2(p)
	}
	return h
}

// passwords are made the way people make them: words, digits, a symbol.
func madePassword(rng *rand.Rand) string {
	words := []string{"Tr0ub4dor", "hunter", "Sommer", "Soleil", "Falcon", "river", "Kaffee", "Purple", "nas", "Blue"}
	syms := "!&#%*+-_"
	return fmt.Sprintf("%s%c%d%s", words[rng.IntN(len(words))], syms[rng.IntN(len(syms))], 10+rng.IntN(90), string(alnum[rng.IntN(26)])+string(alnum[26+rng.IntN(26)]))
}

func base32Seed(rng *rand.Rand) string {
	const b32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 16+8*rng.IntN(2))
	for i := range b {
		b[i] = b32[rng.IntN(len(b32))]
	}
	return string(b)
}

// sentenceForms are the ways a person writes a password into a note, in
// several languages: {pw} a made password, {pin} 4 to 6 digits, {seed} a
// base32 TOTP seed, {code} a recovery code.
var sentenceForms = []string{
	"Das Passwort für den Router ist {pw}",
	"WiFi WPA2 key: {pw}",
	"TOTP seed {seed}",
	"SSH into nas01 as admin with {pw}",
	"The password for the staging box is {pw}",
	"the wifi password is {pw}",
	"Login with admin / {pw}",
	"log in as root:{pw} on the build VM",
	"PIN for the office door: {pin}",
	"The alarm code is {pin}",
	"SIM PIN {pin}, PUK {pin}{pin}",
	"GitHub recovery codes: {code} {code} {code}",
	"backup code {code}",
	"2FA secret: {seed}",
	"Le mot de passe du wifi est {pw}",
	"La contraseña del router es {pw}",
	"Пароль от роутера — {pw}",
	"Mein Passwort lautet {pw}",
	"A senha do wifi é {pw}",
	"Het wachtwoord van de NAS is {pw}",
	"Use {pw} as the password for the NAS",
	"pw for grafana is {pw}",
	"WLAN-Schlüssel: {pw}",
	"creds for the printer admin: admin/{pw}",
	"La password del router è {pw}",
	"Hasło do routera to {pw}",
	"Lösenordet till routern är {pw}",
	"Adgangskoden til routeren er {pw}",
	"Salasana on {pw}",
}

func sentenceSamples() []sample {
	rng := rand.New(rand.NewPCG(corpusSeed, 2))
	var out []sample
	for _, form := range sentenceForms {
		for range 3 {
			s := form
			for strings.Contains(s, "{") {
				s = strings.Replace(s, "{pw}", madePassword(rng), 1)
				s = strings.Replace(s, "{pin}", fmt.Sprint(1000+rng.IntN(900000)), 1)
				s = strings.Replace(s, "{seed}", base32Seed(rng), 1)
				s = strings.Replace(s, "{code}", fmt.Sprintf("%04x-%04x", rng.IntN(1<<16), rng.IntN(1<<16)), 1)
			}
			out = append(out, sample{"sentence", s})
		}
	}
	return out
}

func ordinaryNotes(t testing.TB) []sample {
	data, err := os.ReadFile("testdata/ordinary-notes.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []sample
	for _, note := range strings.Split(string(data), "\n%%\n")[1:] {
		if note = strings.TrimSpace(note); note != "" {
			out = append(out, sample{"ordinary note", note})
		}
	}
	return out
}

// ownFiles are memory files as memoryd writes them: the frontmatter of
// index.Memory.Format with the provenance of each agent's sessions, cites
// with their blobs, dates; and a body that repeats such lines, as a person
// quoting them in a fact does.
func ownFiles(n int) []sample {
	rng := rand.New(rand.NewPCG(corpusSeed, 3))
	hex := func(k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = "0123456789abcdef"[rng.IntN(16)]
		}
		return string(b)
	}
	base62 := func(k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		return string(b)
	}
	stamp := func() string {
		return fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02dZ", 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60))
	}
	uuid := func() string { return hex(8) + "-" + hex(4) + "-7" + hex(3) + "-8" + hex(3) + "-" + hex(12) }
	paths := []string{"internal/secrets/secrets.go", "src/app.go", "config/token_store.go", "keys/api_key.ts", "pkg/auth/password.go", "docs/SECRETS.md"}
	var out []sample
	for i := range n {
		m := &index.Memory{File: fmt.Sprintf("project-fact-%d.md", i), Name: fmt.Sprintf("fact-%d", i),
			Description: "How the deploy is set up", Type: "project", Project: "acme-widgets", Updated: "2026-11-27"}
		var src index.Source
		switch i % 3 {
		case 0:
			day := stamp()
			src = index.Source{Agent: "codex", Session: day[:4] + "/" + day[5:7] + "/" + day[8:10] + "/rollout-" + strings.ReplaceAll(day[:19], ":", "-") + "-" + uuid() + ".jsonl",
				Messages: stamp() + ".." + stamp()}
		case 1:
			src = index.Source{Agent: "opencode", Session: "ses_" + hex(12) + base62(14), Messages: "msg_" + hex(12) + base62(14) + "..msg_" + hex(12) + base62(14)}
		default:
			src = index.Source{Agent: "claude-code", Session: uuid(), Messages: uuid() + ".." + uuid()}
		}
		src.At, src.Cwd, src.Host = stamp(), "/home/ana/src/acme-widgets", "ana-laptop"
		m.Sources = []index.Source{src, {Agent: "compaction", At: stamp()}}
		for range 1 + rng.IntN(3) {
			m.Cites = append(m.Cites, index.Cite{Path: paths[rng.IntN(len(paths))], Blob: hex(40)})
		}
		m.Body = fmt.Sprintf("Deploys go through the staging box first.\n\nFrom session %s, messages: %s (commit %s, blob %s).\n",
			src.Session, src.Messages, hex(40), m.Cites[0])
		out = append(out, sample{"memoryd's own file", string(m.Format())})
	}
	return out
}

// TestDetectorCorpus measures the screen on the corpus. Secrets must be
// found; ordinary notes and memoryd's own files must not be flagged.
func TestDetectorCorpus(t *testing.T) {
	rules, sentences := ruleSamples(t), sentenceSamples()
	found, total := map[string]int{}, map[string]int{}
	var missed []string
	for _, s := range append(rules, sentences...) {
		total[s.family]++
		if len(secrets.ScreenFile([]byte(s.text))) > 0 {
			found[s.family]++
		} else {
			missed = append(missed, s.family+": "+s.text)
		}
	}
	families := make([]string, 0, len(total))
	for f := range total {
		families = append(families, f)
	}
	sort.Strings(families)
	var rows []string
	sumFound, sumTotal := 0, 0
	for _, f := range families {
		if f != "sentence" {
			sumFound, sumTotal = sumFound+found[f], sumTotal+total[f]
		}
		rows = append(rows, fmt.Sprintf("%s %d/%d", f, found[f], total[f]))
	}
	t.Logf("gitleaks rule samples: %d/%d detected, in %d families", sumFound, sumTotal, len(families)-1)
	t.Logf("per family: %s", strings.Join(rows, ", "))
	t.Logf("sentence forms: %d/%d detected (%d forms, 3 each)", found["sentence"], total["sentence"], len(sentenceForms))
	for _, m := range missed {
		t.Logf("missed %s", m)
	}
	for _, set := range [][]sample{ordinaryNotes(t), ownFiles(300)} {
		flagged := 0
		for _, s := range set {
			if f := secrets.ScreenFile([]byte(s.text)); len(f) > 0 {
				flagged++
				t.Errorf("false positive (%s, line %d) in %s:\n%s", f[0].Kind, f[0].Line, s.family, s.text)
			}
		}
		t.Logf("%s: %d false positives of %d", set[0].family, flagged, len(set))
	}
	if found["sentence"] != total["sentence"] {
		t.Errorf("sentence forms: %d of %d detected", found["sentence"], total["sentence"])
	}
}

// BenchmarkScreenFile is the cost of screening one memory file, over the
// corpus of ordinary notes and memoryd's own files (what a commit screens).
func BenchmarkScreenFile(b *testing.B) {
	files := append(ordinaryNotes(b), ownFiles(60)...)
	data := make([][]byte, len(files))
	for i, f := range files {
		data[i] = []byte(f.text)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		secrets.ScreenFile(data[i%len(data)])
	}
}
