package llm

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestLineWriter(t *testing.T) {
	var seen []string
	w := &lineWriter{max: 2, onLine: func(l string) { seen = append(seen, l) }}
	for _, chunk := range []string{"one\r\ntw", "o\nthr", "ee\nfour"} {
		w.Write([]byte(chunk))
	}
	if !slices.Equal(seen, []string{"one", "two", "three"}) {
		t.Errorf("lines %q", seen)
	}
	if got := w.tail(5); got != "two | three" {
		t.Errorf("tail %q (keeps the last 2)", got)
	}
	if w.find("tw") != "two" || w.find("one") != "" {
		t.Errorf("find")
	}
}

func TestStatusErrorLooksUpRef(t *testing.T) {
	s := &ocServer{stderr: &lineWriter{max: 10}}
	s.stderr.Write([]byte(`timestamp=x level=ERROR message=failed ref=err_ab12 error="ProviderModelNotFoundError: Model not found: a/b." cause="..."` + "\n"))
	err := s.statusError(500, []byte(`{"name":"UnknownError","data":{"message":"Unexpected server error.","ref":"err_ab12"}}`))
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 500 || se.Body != "ProviderModelNotFoundError: Model not found: a/b." {
		t.Errorf("got %v", err)
	}
	err = s.statusError(400, []byte(`{"name":"BadRequest","data":{"message":"no such agent"}}`))
	if err.Error() != "status 400: BadRequest: no such agent" {
		t.Errorf("got %v", err)
	}
}

func TestServerEnv(t *testing.T) {
	env := serverEnv([]string{"HOME=/h", "OPENCODE_DB=/user.db", "OPENCODE_DISABLE_PROJECT_CONFIG=1",
		"OPENCODE_SERVER_PASSWORD=x", "OPENAI_API_KEY=k"}, "/state/opencode")
	get := func(key string) (vals []string) {
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == key {
				vals = append(vals, v)
			}
		}
		return vals
	}
	if db := get("OPENCODE_DB"); !slices.Equal(db, []string{"/state/opencode/opencode.db"}) {
		t.Errorf("OPENCODE_DB %q", db)
	}
	if get("OPENCODE_DISABLE_PROJECT_CONFIG") != nil || get("OPENCODE_SERVER_PASSWORD") != nil {
		t.Error("inherited variables that would break the server were kept")
	}
	if get("HOME")[0] != "/h" || get("OPENAI_API_KEY")[0] != "k" {
		t.Error("the user's environment was not passed on")
	}
	var cfg struct {
		Agent map[string]struct {
			Mode       string
			Tools      map[string]bool
			Permission map[string]string
		}
	}
	if err := json.Unmarshal([]byte(get("OPENCODE_CONFIG_CONTENT")[0]), &cfg); err != nil {
		t.Fatal(err)
	}
	a := cfg.Agent[agentName]
	if a.Mode != "primary" || a.Tools["*"] || a.Permission["*"] != "deny" {
		t.Errorf("agent %+v is not tool-less", a)
	}
}
