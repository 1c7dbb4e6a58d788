package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memoryd/memoryd/internal/llm/llmtest"
	"github.com/memoryd/memoryd/internal/needtool"
)

// TestOpenCodeDefaultModel asks the real opencode for the model its user
// configured: small_model first, then model, then none.
func TestOpenCodeDefaultModel(t *testing.T) {
	bin := needtool.Path(t, "opencode")
	cases := []struct{ config, want string }{
		{`{"small_model": "acme/small", "model": "acme/big"}`, "acme/small"},
		{`{"model": "acme/big"}`, "acme/big"},
		{`{}`, ""},
	}
	for _, c := range cases {
		home := t.TempDir()
		dir := llmtest.OpenCodeConfigDir(home)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(c.config), 0o644)
		got, err := OpenCodeDefaultModel(context.Background(), bin, llmtest.OpenCodeEnv(home))
		if err != nil || got != c.want {
			t.Errorf("config %s: got %q, %v; want %q", c.config, got, err, c.want)
		}
	}
}

// TestModelsFromHTTPProvider lists models with the free /models call.
func TestModelsFromHTTPProvider(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		w.Write([]byte(`{"data": [{"id": "gpt-x"}, {"id": "gpt-y"}]}`))
	}))
	defer srv.Close()
	got, err := Models(context.Background(), Options{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "k"})
	if err != nil || !slices.Equal(got, []string{"openai/gpt-x", "openai/gpt-y"}) {
		t.Fatalf("Models = %v, %v", got, err)
	}
}
