package secrets

import "testing"

func TestProbe(t *testing.T) {
	for _, s := range []string{
		"Pin the base image by digest sha256:9b2a6c1d8e7f4a5b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b in production.",
	} {
		for _, f := range FindSecrets(s) { t.Logf("%q -> %s %q", s, f.Kind, s[f.Start:f.End]) }
	}
}
