package config

import (
	"strings"
	"testing"
	"time"
)

func TestReviewUnusedAfter(t *testing.T) {
	if d := Default().Review.UnusedAfter; d.D() != 90*24*time.Hour || d.String() != "90d" {
		t.Fatalf("default %v (%s), want 90d", d.D(), d)
	}
	for text, want := range map[string]time.Duration{"60d": 60 * 24 * time.Hour, "0": 0, "36h": 36 * time.Hour} {
		c := Default()
		if err := Parse(strings.NewReader("review:\n  unused_after: "+text+"\n"), "config.yaml", &c); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if c.Review.UnusedAfter.D() != want {
			t.Errorf("%s: %v, want %v", text, c.Review.UnusedAfter.D(), want)
		}
	}
	c := Default()
	c.MemoryDir = "/m"
	c.Review.UnusedAfter = Duration(-time.Hour)
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "review.unused_after") {
		t.Fatalf("negative: %v", err)
	}
}
