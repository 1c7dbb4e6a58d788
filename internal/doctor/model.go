package doctor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/state"
)

const (
	// ModelCheckTTL is how long doctor trusts what it last learnt of the
	// provider's models: asking OpenCode takes up to tens of seconds.
	ModelCheckTTL = 24 * time.Hour
	// ModelCheckTimeout bounds the one cheap request of the check.
	ModelCheckTimeout = 10 * time.Second
)

// ModelCheck is what doctor last learnt of the provider's models, kept in
// the state folder (state.ModelCheckFile). It is the only file doctor
// writes, and never a memory file.
type ModelCheck struct {
	CheckedAt time.Time `json:"checkedAt"`
	// Key is ModelCheckKey of what was checked: a check made for another
	// provider, model or configuration is not used.
	Key      string `json:"key"`
	Provider string `json:"provider"`
	BaseURL  string `json:"baseURL,omitempty"`
	// OpenCodeModel is OpenCode's own model (small_model, else model),
	// read when no model is configured; "" when none was read.
	OpenCodeModel string   `json:"openCodeModel,omitempty"`
	Offered       []string `json:"offered,omitempty"`
	Err           string   `json:"err,omitempty"` // why the list could not be read
}

// LoadModelCheck returns the cached check made for key (ModelCheckKey)
// when it is younger than ModelCheckTTL at now.
func LoadModelCheck(stateDir, key string, now time.Time) (ModelCheck, bool) {
	var mc ModelCheck
	if stateDir == "" || state.ReadJSON(stateDir, state.ModelCheckFile, &mc) != nil {
		return ModelCheck{}, false
	}
	if mc.Key != key || mc.CheckedAt.After(now) || now.Sub(mc.CheckedAt) > ModelCheckTTL {
		return ModelCheck{}, false
	}
	return mc, true
}

// ModelCheckKey names what a model check depends on: the provider, its
// base URL and API key, the models configured for extraction and
// compaction (those left at their defaults count as unset: OpenCode's own
// model is used then), and, for opencode, OpenCode's configuration and
// credentials (llm.OpenCodeConfigDigest with env). Only digests are kept.
func ModelCheckKey(provider string, cfg config.Config, env []string) string {
	configured := func(key, v string) string {
		if cfg.Origin(key).Source == config.FromDefault {
			return ""
		}
		return v
	}
	h := sha256.New()
	for _, part := range []string{provider, cfg.LLM.BaseURL, cfg.LLM.APIKey,
		configured("extract.model", cfg.Extract.Model), configured("compact.model", cfg.Compact.Model)} {
		h.Write([]byte(part + "\x00"))
	}
	if provider == "opencode" {
		h.Write([]byte(llm.OpenCodeConfigDigest(env)))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// model checks, without a paid call, that the provider offers the models
// extraction and compaction use: one cheap request with a short time-out,
// its answer kept a day (Options.Cached; doctor --fresh asks again).
func (d *doctor) model() {
	mc, age := d.modelCheck()
	when := "checked now"
	if age > 0 {
		when = "checked " + ago(age) + " ago; memoryd doctor --fresh checks again"
	}
	if mc.Err != "" {
		d.ok("llm model", fmt.Sprintf("%s (the provider's model list could not be read: %s; %s)", d.o.Config.Extract.Model, mc.Err, when))
		return
	}
	fix := "set extract.model (and compact.model) to one the provider lists"
	if d.o.Provider == "opencode" {
		fix += ": opencode models"
		if d.noModel(mc) {
			d.unused("llm model", "no model configured: extraction and compaction are off until you set one — model (or small_model) "+
				"in OpenCode's config, or extract.model in "+d.o.ConfigPath+" (opencode models lists them; "+when+")")
			return
		}
	}
	for _, m := range slices.Compact([]string{d.o.Config.Extract.Model, d.o.Config.Compact.Model}) {
		if !slices.Contains(mc.Offered, m) {
			d.bad("llm model", fmt.Sprintf("%s does not offer %s (%d models offered; %s)", d.o.Provider, m, len(mc.Offered), when), fix)
			return
		}
	}
	d.ok("llm model", fmt.Sprintf("%s (%s)", d.o.Config.Extract.Model, when))
}

// noModel reports whether no model is set anywhere — not in memoryd's
// config, not in OpenCode's — and the default model is not one OpenCode
// offers: the jobs have no model to use.
func (d *doctor) noModel(mc ModelCheck) bool {
	return d.o.OpenCodeModel == "" && d.o.Config.Origin("extract.model").Source == config.FromDefault &&
		!slices.Contains(mc.Offered, d.o.Config.Extract.Model)
}

// modelCheck returns the cached check and its age, or asks the provider
// now (age 0) and caches the answer.
func (d *doctor) modelCheck() (ModelCheck, time.Duration) {
	now := time.Now()
	if c := d.o.Cached; c != nil {
		return *c, max(now.Sub(c.CheckedAt), time.Second)
	}
	ctx, cancel := context.WithTimeout(d.ctx, ModelCheckTimeout)
	defer cancel()
	mc := ModelCheck{CheckedAt: now, Key: ModelCheckKey(d.o.Provider, d.o.Config, d.o.LLM.Env), Provider: d.o.Provider, BaseURL: d.o.Config.LLM.BaseURL, OpenCodeModel: d.o.OpenCodeModel}
	offered, err := llm.Models(ctx, d.o.LLM)
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("no answer within %s", ModelCheckTimeout)
	}
	if err != nil {
		mc.Err = err.Error()
	} else {
		mc.Offered = offered
	}
	if d.o.StateDir != "" {
		state.WriteJSON(d.o.StateDir, state.ModelCheckFile, mc) // a cache: failing to keep it only makes the next doctor slower
	}
	return mc, 0
}

// ago is a duration in the largest whole unit: "3h", "12m", "40s".
func ago(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d >= time.Minute:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}

// llm says which provider is used and whether it answers.
func (d *doctor) llm() {
	if !d.provider() {
		return
	}
	d.model()
	if d.o.Live != nil {
		d.liveCall()
	}
}

// provider says which provider is used and whether it can be reached;
// false when it cannot be used at all.
func (d *doctor) provider() bool {
	provider := d.o.Provider
	switch provider {
	case "none":
		d.unused("llm provider", "none: compaction and extraction are off (set llm.provider in "+d.o.ConfigPath+
			" to opencode, openai or anthropic, or MEMORY_LLM_PROVIDER, to turn them on)")
		return false
	case "opencode":
		if _, err := exec.LookPath("opencode"); err != nil {
			d.bad("llm provider", "opencode is the provider but is not on PATH", "install OpenCode, or choose another llm.provider")
			return false
		}
		d.ok("llm provider", "opencode (uses OpenCode's own provider settings)")
		return true
	}
	base := d.o.Config.LLM.BaseURL
	if base == "" {
		base = llm.DefaultBaseURL(provider)
	}
	loopback, err := llm.Dial(d.ctx, base)
	switch {
	case errors.Is(err, llm.ErrBadBaseURL):
		d.bad("llm provider", err.Error(), "fix llm.base_url")
	case err != nil:
		d.bad("llm provider", fmt.Sprintf("%s at %s is not reachable: %v", provider, base, err), "check llm.base_url and your network")
	case d.o.Config.LLM.APIKey == "" && !loopback:
		d.bad("llm provider", provider+" has no API key", "set MEMORY_LLM_API_KEY (or OPENAI_API_KEY / ANTHROPIC_API_KEY)")
	default:
		d.ok("llm provider", provider+" at "+base)
		return true
	}
	return false
}

// liveCall makes one tiny real call (doctor --llm) and reports its latency
// and tokens.
func (d *doctor) liveCall() {
	start := time.Now()
	resp, err := d.o.Live.Complete(d.ctx, llm.Request{Task: "doctor", Model: d.o.Config.Extract.Model,
		Prompt: "Answer with the single word: ok"})
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		d.bad("llm call", fmt.Sprintf("%s failed after %s: %v", d.o.Config.Extract.Model, took, err), "check the model and the provider's credentials")
		return
	}
	d.ok("llm call", fmt.Sprintf("%s answered in %s (%d tokens in, %d out): %q",
		d.o.Config.Extract.Model, took, resp.InputTokens, resp.OutputTokens, clipText(resp.Text, 40)))
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
