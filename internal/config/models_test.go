package config

import "testing"

// TestUseModel: a provider's own model replaces the job models the user
// did not configure, and none when extract.model is configured.
func TestUseModel(t *testing.T) {
	c := Default()
	if got := c.DefaultModels(); len(got) != 2 {
		t.Fatalf("defaults %v", got)
	}
	c.UseModel("user/small")
	if c.Extract.Model != "user/small" || c.Compact.Model != "user/small" {
		t.Errorf("extract %q, compact %q", c.Extract.Model, c.Compact.Model)
	}
	c = Default()
	if err := c.Set("compact.model", "big/one", Origin{Source: FromFlag}); err != nil {
		t.Fatal(err)
	}
	c.UseModel("user/small")
	if c.Extract.Model != "user/small" || c.Compact.Model != "big/one" {
		t.Errorf("compact configured: extract %q, compact %q", c.Extract.Model, c.Compact.Model)
	}
	c = Default()
	if err := c.Set("extract.model", "mine/x", Origin{Source: FromFlag}); err != nil {
		t.Fatal(err)
	}
	c.UseModel("user/small")
	if c.Extract.Model != "mine/x" || len(c.DefaultModels()) != 1 {
		t.Errorf("extract configured: extract %q, defaults %v", c.Extract.Model, c.DefaultModels())
	}
	c.UseModel("")
}
