package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/doctor"
	"github.com/memoryd/memoryd/internal/llm"
)

// jsonOptions are the options of a command whose one flag is --json.
type jsonOptions struct {
	*app
	json bool
}

func newCmdConfig(a *app) *cobra.Command {
	o := &jsonOptions{app: a}
	cmd := &cobra.Command{
		Use:   "config [--json]",
		Short: "Print the effective configuration and where each value comes from (default, file:line, env, flag).",
		Args:  argsAtMost(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return runConfig(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print as JSON")
	return cmd
}

// configReport is what `memoryd config --json` prints.
type configReport struct {
	File      string          `json:"file"`
	FileFound bool            `json:"fileFound"`
	Settings  []configSetting `json:"settings"`
	Problems  []string        `json:"problems"`
}

type configSetting struct {
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

// runConfig is `memoryd config`, like `git config --list --show-origin`:
// every key's effective value after the file, environment and flags, and
// where it came from. An invalid configuration is printed too, as far as
// it could be read; then the command fails with its problems.
func runConfig(ctx context.Context, o *jsonOptions) error {
	e := o.env
	cfg, _, invalid := readConfig(e, o.global)
	if invalid == nil {
		if err := cfg.Validate(); err != nil {
			invalid = configError{err}
		}
	}
	r := configReport{Problems: []string{}}
	r.File, r.FileFound = cfg.File()
	for _, s := range cfg.Settings() {
		r.Settings = append(r.Settings, reportSetting(s))
	}
	if invalid != nil {
		r.Problems = strings.Split(errors.Unwrap(invalid).Error(), "\n")
	}
	explainEffective(ctx, cfg, r.Settings)
	if o.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		printConfig(e.stdout, r)
	}
	return invalid
}

func reportSetting(s config.Setting) configSetting {
	out := configSetting{Key: s.Key, Value: s.Value, Origin: s.Origin.Source.String(), Env: s.Env, Secret: s.Secret}
	switch s.Origin.Source {
	case config.FromFile:
		out.File, out.Line = s.Origin.File, s.Origin.Line
	case config.FromEnv, config.FromFlag:
		out.Name = s.Origin.Name
	}
	if d, ok := s.Value.(config.Duration); ok {
		out.Value = d.String()
	}
	if s.Secret && s.Value != "" {
		out.Value = "(hidden)"
	}
	return out
}

func printConfig(w io.Writer, r configReport) {
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

// explainEffective fills Effective and Because for the settings whose
// value in effect is resolved at run time: llm.provider when it is not
// set, and the models when the opencode provider uses OpenCode's own.
func explainEffective(ctx context.Context, cfg config.Config, settings []configSetting) {
	provider, because := llm.EffectiveProvider(cfg.LLM.Provider)
	model := ""
	for i := range settings {
		s := &settings[i]
		switch s.Key {
		case "llm.provider":
			if cfg.LLM.Provider == "" {
				s.Effective, s.Because = provider, because
			}
		case "extract.model":
			if provider != "opencode" || s.Origin != "default" {
				model = cfg.Extract.Model
				continue
			}
			ctx, cancel := context.WithTimeout(ctx, doctor.ModelCheckTimeout)
			m, err := llm.OpenCodeDefaultModel(ctx, "", nil)
			cancel()
			switch {
			case err != nil:
				model = cfg.Extract.Model
				s.Effective, s.Because = model, "extract.model is not set and OpenCode's own model could not be read ("+err.Error()+"): the built-in default is used"
			case m == "":
				model = cfg.Extract.Model
				s.Effective, s.Because = model, "extract.model is not set and OpenCode has no small_model or model: the built-in default is used"
			default:
				model = m
				s.Effective, s.Because = m, "extract.model is not set: the opencode provider uses OpenCode's own small_model (else its model)"
			}
		case "compact.model":
			if s.Origin == "default" && model != "" && model != cfg.Compact.Model {
				s.Effective, s.Because = model, "compact.model is not set: the extract model"
			}
		}
	}
}
