package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memoryd/memoryd/internal/install"
	"github.com/memoryd/memoryd/internal/shell"
	"github.com/memoryd/memoryd/internal/state"
)

// noManagerTold reports whether install has explained before, for the
// memory folder dir, how memoryd runs without a per-user service manager.
func noManagerTold(e env, dir string) bool {
	sd, err := state.Dir(stateHome(e), dir)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(sd, state.NoManagerFile))
	return err == nil
}

// startWithoutManager is install's last step where no per-user service
// manager answers: everything else is set up, so the daemon is started the
// way memoryd start starts it (a running one is reported as running), and
// install remembers that it explained this case.
func startWithoutManager(e env, o install.Options) error {
	g := globalFlags{config: o.ConfigPath}
	runLine := shell.Quote(o.Binary) + " run --config " + shell.Quote(o.ConfigPath)
	f, err := openFolder(e, g)
	if err != nil {
		return fmt.Errorf("the memory folder is set up, but memoryd could not be started: %w\nstart it with: %s", err, runLine)
	}
	if err := background(f, g, e.stdout).Start("no per-user service manager answers here"); err != nil {
		return fmt.Errorf("%w\nstart it yourself with: %s", err, runLine)
	}
	// Only a hint: without the mark the next install explains again.
	_ = os.WriteFile(filepath.Join(f.stateDir, state.NoManagerFile), nil, 0o600)
	return nil
}
