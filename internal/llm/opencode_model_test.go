package llm

import (
	"context"
	"testing"
)

// TestWithResolvedModel: a request for a default model gets the resolved
// one, asked once; another model is passed on as it is; nothing resolved
// keeps the default.
func TestWithResolvedModel(t *testing.T) {
	var got []string
	next := &Fake{CompleteFunc: func(ctx context.Context, req Request) (Response, error) {
		got = append(got, req.Model)
		return Response{Text: "ok"}, nil
	}}
	asked := 0
	for _, resolved := range []string{"acme/small", ""} {
		got, asked = nil, 0
		c := WithResolvedModel(next, []string{"openai/gpt-5-mini"}, func(context.Context) string { asked++; return resolved })
		for _, m := range []string{"openai/gpt-5-mini", "acme/big", "openai/gpt-5-mini"} {
			if _, err := c.Complete(context.Background(), Request{Task: "extract", Model: m, Prompt: "p"}); err != nil {
				t.Fatal(err)
			}
		}
		want := resolved
		if want == "" {
			want = "openai/gpt-5-mini"
		}
		if asked != 1 || got[0] != want || got[1] != "acme/big" || got[2] != want {
			t.Errorf("resolved %q: asked %d times, models sent %q", resolved, asked, got)
		}
	}
	if c := WithResolvedModel(next, nil, nil); c != Completer(next) {
		t.Error("with no defaults the client is not returned as it is")
	}
}
