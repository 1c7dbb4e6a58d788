package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The report says where each value came from, hides secrets, writes
// durations as in the file, and lists problems a line each.
func TestReportOriginsAndSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte("compact:\n  poll: 90s\n"), 0o600)
	c, err := Load(path, true, env(map[string]string{"MEMORY_LLM_API_KEY": "sk-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Report(errors.New("one\ntwo"))
	got := map[string]ReportSetting{}
	for _, s := range r.Settings {
		got[s.Key] = s
	}
	if s := got["compact.poll"]; s.Origin != "file" || s.File != path || s.Line != 2 || s.Value != "1m30s" && s.Value != "90s" {
		t.Errorf("compact.poll: %+v", s)
	}
	if s := got["llm.api_key"]; s.Origin != "env" || s.Name != "MEMORY_LLM_API_KEY" || s.Value != "(hidden)" {
		t.Errorf("llm.api_key: %+v", s)
	}
	if r.File != path || !r.FileFound || len(r.Problems) != 2 {
		t.Errorf("file %q %v, problems %q", r.File, r.FileFound, r.Problems)
	}
	var out bytes.Buffer
	PrintReport(&out, r)
	if !strings.Contains(out.String(), path+":2") || strings.Contains(out.String(), "sk-secret") {
		t.Errorf("printed:\n%s", out.String())
	}
}
