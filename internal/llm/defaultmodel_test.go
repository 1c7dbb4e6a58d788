package llm

import (
	"context"
	"sync/atomic"
	"testing"
)

// completerFunc is a Completer made of a function.
type completerFunc func(context.Context, Request) (Response, error)

func (f completerFunc) Complete(ctx context.Context, r Request) (Response, error) { return f(ctx, r) }

// TestWithDefaultModel: a request naming a default model uses the resolved
// one, asked once for every request; a configured model is left alone; an
// empty answer keeps the default's name.
func TestWithDefaultModel(t *testing.T) {
	var got []string
	inner := completerFunc(func(_ context.Context, r Request) (Response, error) {
		got = append(got, r.Model)
		return Response{}, nil
	})
	var asked atomic.Int32
	c := WithDefaultModel(inner, []string{"builtin/default"}, func(context.Context) string {
		asked.Add(1)
		return "user/small"
	})
	for _, m := range []string{"builtin/default", "configured/one", "builtin/default"} {
		c.Complete(context.Background(), Request{Model: m})
	}
	if want := []string{"user/small", "configured/one", "user/small"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("models %v, want %v", got, want)
	}
	if asked.Load() != 1 {
		t.Errorf("asked %d times, want once", asked.Load())
	}
	got = nil
	WithDefaultModel(inner, []string{"d"}, func(context.Context) string { return "" }).Complete(context.Background(), Request{Model: "d"})
	if len(got) != 1 || got[0] != "d" {
		t.Errorf("with no answer: %v", got)
	}
	if WithDefaultModel(inner, nil, nil) == nil {
		t.Error("nil client without defaults")
	}
}
