package llm

import (
	"context"
	"io"
	"log/slog"
	"sync"
)

// WithDefaultModel wraps c so that the requests naming one of defaults —
// the job models the user did not configure — use the model resolve
// returns instead, asked once, by the first such request ("" keeps the
// name). It is the opencode provider's client when no model is configured:
// the built-in default names a model most OpenCode setups do not have, and
// asking OpenCode (ResolveOpenCodeModel) costs up to 30 s, so it is asked
// when a job first needs it, never at the daemon's start, and a daemon that
// never runs a job never asks. It returns c itself when defaults is empty.
func WithDefaultModel(c Completer, defaults []string, resolve func(context.Context) string) Completer {
	if len(defaults) == 0 {
		return c
	}
	d := &defaultModel{Completer: c, resolve: resolve, defaults: map[string]bool{}}
	for _, m := range defaults {
		d.defaults[m] = true
	}
	return d
}

// defaultModel is WithDefaultModel's client.
type defaultModel struct {
	Completer
	resolve  func(context.Context) string
	defaults map[string]bool
	once     sync.Once
	model    string // the resolved model, "" when there is none
}

func (d *defaultModel) Complete(ctx context.Context, req Request) (Response, error) {
	if d.defaults[req.Model] {
		d.once.Do(func() { d.model = d.resolve(ctx) })
		if d.model != "" {
			req.Model = d.model
		}
	}
	return d.Completer.Complete(ctx, req)
}

// Close closes the client it wraps.
func (d *defaultModel) Close() error {
	if c, ok := d.Completer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// ResolveOpenCodeModel asks OpenCode (with env) for the user's
// small_model, else model, and says in log what the jobs will use:
// OpenCode's model, or fallback when OpenCode has none or cannot say, and
// then it returns "".
func ResolveOpenCodeModel(ctx context.Context, env []string, log *slog.Logger, fallback string) string {
	m, err := OpenCodeDefaultModel(ctx, "", env)
	switch {
	case err != nil:
		log.Warn("could not read OpenCode's model; set extract.model", "err", err, "using", fallback)
		return ""
	case m == "":
		log.Warn("OpenCode has no small_model or model set; set extract.model (memoryd doctor lists what OpenCode offers)", "using", fallback)
		return ""
	}
	log.Info("using OpenCode's own model", "model", m)
	return m
}
