package secrets

import (
	"strings"
	"testing"
)

// BenchmarkGitleaksLoad is what the first screen in a process pays once:
// parsing gitleaks' default rule set.
func BenchmarkGitleaksLoad(b *testing.B) {
	for b.Loop() {
		if c := parseGitleaks(); len(c.Rules) < 200 {
			b.Fatalf("%d rules", len(c.Rules))
		}
	}
}

// BenchmarkFirstScreen is what the first screen in a process pays: the
// rules parsed and compiled fresh, then one ordinary fact screened.
func BenchmarkFirstScreen(b *testing.B) {
	const fact = "---\nname: deploy\ndescription: How staging deploys\n---\nDeploys go through the staging box; the password is in the team vault.\n"
	for b.Loop() {
		c := parseGitleaks()
		lower := strings.ToLower(fact)
		for _, r := range append(ownRules(), proseRules()...) {
			if containsAny(lower, r.hints) {
				r.regexp()
			}
		}
		for _, r := range c.Rules {
			if containsAny(lower, r.Keywords) {
				r.regexp()
			}
		}
	}
}
