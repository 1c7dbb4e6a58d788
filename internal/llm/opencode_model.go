package llm

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
)

// OpenCodeModel resolves the model of memoryd's jobs when the opencode
// provider runs with no model configured: the user's own OpenCode
// small_model, else its model (OpenCodeDefaultModel with env), said in
// log. The built-in default names a model most OpenCode setups do not
// have. "" when OpenCode has neither or cannot say; then the jobs keep the
// default, and the log says to set extract.model.
func OpenCodeModel(ctx context.Context, env []string, log *slog.Logger, fallback string) string {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
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

// lazyModel is a Completer whose requests for a default model get the
// model resolve returns, asked once, when a request first names one.
type lazyModel struct {
	Completer
	defaults []string // the model names left at their defaults
	resolve  func(context.Context) string
	once     sync.Once
	model    string // the resolved model, "" when there is none
}

// WithResolvedModel wraps c: a request whose model is one of defaults (the
// configured model names left at their defaults) is sent with the model
// resolve returns instead — asked once, when a job first needs it, so that
// asking (an `opencode debug config` of up to 30 s) never holds up the
// daemon's start, and a daemon that runs no job never asks. "" keeps the
// request's model. Closing the result closes c. With no defaults it
// returns c.
func WithResolvedModel(c Completer, defaults []string, resolve func(context.Context) string) Completer {
	if len(defaults) == 0 {
		return c
	}
	return &lazyModel{Completer: c, defaults: defaults, resolve: resolve}
}

func (l *lazyModel) Complete(ctx context.Context, req Request) (Response, error) {
	if slices.Contains(l.defaults, req.Model) {
		l.once.Do(func() { l.model = l.resolve(ctx) })
		if l.model != "" {
			req.Model = l.model
		}
	}
	return l.Completer.Complete(ctx, req)
}

// Close closes the client it wraps.
func (l *lazyModel) Close() error {
	if c, ok := l.Completer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
