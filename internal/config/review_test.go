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

// TestExtractSince: extract.since reads install, all, an age and a date,
// and refuses anything else naming the key.
func TestExtractSince(t *testing.T) {
	first := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	for since, want := range map[string]time.Time{
		"install": first, "": first, "all": {}, "30d": now.Add(-30 * 24 * time.Hour),
		"2026-10-01": time.Date(2026, 10, 1, 0, 0, 0, 0, time.Local),
	} {
		got, err := Horizon(since, first, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("Horizon(%q) = %v, %v; want %v", since, got, err, want)
		}
	}
	c := Default()
	err := Parse(strings.NewReader("extract:\n  since: last tuesday\n"), "config.yaml", &c)
	if err == nil {
		err = c.Validate()
	}
	if err == nil || !strings.Contains(err.Error(), "extract.since: must be install, all, an age") {
		t.Errorf("a bad extract.since: %v", err)
	}
}
