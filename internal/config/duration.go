package config

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration that YAML may give either as a Go duration
// string ("2s", "12h") or as a whole number of milliseconds, matching the
// *_MS environment variables.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String is the Go duration without zero units: 12h, 10m, 1h30m, 2.5s;
// whole days of at least two are written as days: 90d.
func (d Duration) String() string {
	if day := 24 * time.Hour; time.Duration(d) >= 2*day && time.Duration(d)%day == 0 {
		return fmt.Sprintf("%dd", time.Duration(d)/day)
	}
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// UnmarshalYAML implements yaml.Unmarshaler, for callers that decode a
// Duration themselves; Parse reads durations through the same parser.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: must be a duration such as 2s or a whole number of milliseconds", n.Line)
	}
	v, err := parseDuration(n.Value, false)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// ParseDuration reads a duration as the configuration does: a Go duration
// ("36h"), whole days ("60d") or whole milliseconds. Flags that take an age
// use it, so they read what config.yaml reads.
func ParseDuration(s string) (time.Duration, error) {
	d, err := parseDuration(s, false)
	return d.D(), err
}
