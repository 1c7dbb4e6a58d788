package config

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Report is what `memoryd config --json` prints: like `git config --list
// --show-origin`, every key's value after the file, environment and flags,
// and where it came from.
type Report struct {
	File      string          `json:"file"`
	FileFound bool            `json:"fileFound"`
	Settings  []ReportSetting `json:"settings"`
	Problems  []string        `json:"problems"`
}

// ReportSetting is one key in a Report.
type ReportSetting struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`            // string, number or bool; durations as "2s"
	Origin string `json:"origin"`           // default, file, env or flag
	File   string `json:"file,omitempty"`   // origin file
	Line   int    `json:"line,omitempty"`   // origin file's line
	Name   string `json:"name,omitempty"`   // origin variable or flag
	Env    string `json:"env,omitempty"`    // the variable that overrides the key
	Secret bool   `json:"secret,omitempty"` // the value is hidden
	// Effective is the value in effect when it is not Value (a provider
	// or model resolved at run time), and Because says why.
	Effective any    `json:"effective,omitempty"`
	Because   string `json:"because,omitempty"`
}

// Report is c as `memoryd config` shows it; invalid is what reading or
// validating it found wrong (nil: nothing), one problem a line.
func (c Config) Report(invalid error) Report {
	r := Report{Problems: []string{}}
	r.File, r.FileFound = c.File()
	for _, s := range c.Settings() {
		r.Settings = append(r.Settings, reportSetting(s))
	}
	if invalid != nil {
		r.Problems = strings.Split(invalid.Error(), "\n")
	}
	return r
}

func reportSetting(s Setting) ReportSetting {
	out := ReportSetting{Key: s.Key, Value: s.Value, Origin: s.Origin.Source.String(), Env: s.Env, Secret: s.Secret}
	switch s.Origin.Source {
	case FromFile:
		out.File, out.Line = s.Origin.File, s.Origin.Line
	case FromEnv, FromFlag:
		out.Name = s.Origin.Name
	}
	if d, ok := s.Value.(Duration); ok {
		out.Value = d.String()
	}
	if s.Secret && s.Value != "" {
		out.Value = "(hidden)"
	}
	return out
}

// PrintReport writes r as `memoryd config` shows it: the file, then a
// line a key with its value and where it came from.
func PrintReport(w io.Writer, r Report) {
	found := ""
	if !r.FileFound {
		found = " (not found; defaults and environment only)"
	}
	fmt.Fprintf(w, "# config file: %s%s\n", r.File, found)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range r.Settings {
		v := fmt.Sprint(s.Value)
		if str, ok := s.Value.(string); ok && (str == "" || strings.ContainsAny(str, " \t\"")) {
			v = strconv.Quote(str)
		}
		where := s.Origin
		switch s.Origin {
		case "file":
			where = fmt.Sprintf("%s:%d", s.File, s.Line)
		case "env", "flag":
			where += " " + s.Name
		}
		if s.Because != "" {
			where += "\t→ " + fmt.Sprint(s.Effective) + ": " + s.Because
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, v, where)
	}
	tw.Flush()
}
