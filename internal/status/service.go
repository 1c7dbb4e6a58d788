package status

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/shell"
)

// Service is what the service manager says about the memoryd service,
// asked once per command.
type Service struct {
	Options install.Options
	Status  install.ServiceStatus
	Err     error // the manager could not be asked (or no options: HOME unset)
}

// Installed reports whether the unit or plist exists.
func (s Service) Installed() bool { return s.Status.Installed }

// Describe is the service line of `memoryd status`.
func (s Service) Describe() string {
	switch {
	case s.Options.Home == "":
		return ""
	case !s.Status.Installed:
		return "not installed"
	case s.Err != nil:
		return fmt.Sprintf("installed (%s), state unknown: %v", s.Status.File, s.Err)
	case s.Status.Running:
		return fmt.Sprintf("%s, running (%s)", s.Status.Platform, s.Status.Detail)
	default:
		return fmt.Sprintf("%s, installed but not running (%s)", s.Status.Platform, s.Status.Detail)
	}
}

// RunLine is the `memoryd run` command line that starts a daemon for the
// folder dir configured by cfg: with the configuration file when there is
// one, as the service does, and with the folder unless that file names it.
func RunLine(cfg config.Config, dir string) string {
	args := []string{"memoryd", "run"}
	if p, found := cfg.File(); found {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		args = append(args, "--config", shell.Quote(p))
	}
	if cfg.Origin("memory_dir").Source != config.FromFile {
		args = append(args, "--memory-dir", shell.Quote(dir))
	}
	return strings.Join(args, " ")
}
