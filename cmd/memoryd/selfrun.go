package main

import (
	"context"
	"fmt"
	"io"

	"github.com/memoryd/memoryd/internal/install"
)

// runControl is start, stop or restart: the service's when one is
// installed and its manager answers, else the background daemon's
// (install.Background).
func runControl(ctx context.Context, a *app, verb string, service func(context.Context, install.Options) error) error {
	e := a.env
	o, err := installOptions(e, a.global, "")
	if err != nil {
		return err
	}
	err = service(ctx, o)
	if err == nil {
		fmt.Fprintf(e.stdout, "memoryd service: %s done\n", verb)
		return nil
	}
	if !install.NoService(err) {
		return err
	}
	f, ferr := openFolder(e, a.global)
	if ferr != nil {
		return fmt.Errorf("%w; and no background daemon can be %s: %w", err, map[string]string{"start": "started", "stop": "stopped", "restart": "restarted"}[verb], ferr)
	}
	return background(f, a.global, e.stdout).Control(verb, err)
}

// background is the folder's own daemon where no service runs it.
func background(f *folder, g globalFlags, out io.Writer) install.Background {
	return install.Background{Dir: f.dir, StateDir: f.stateDir, Config: g.config, MemoryDir: g.memoryDir, Out: out}
}
