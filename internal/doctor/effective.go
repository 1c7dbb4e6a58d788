package doctor

import (
	"context"
	"strings"

	"github.com/memoryd/memoryd/internal/config"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/thesaurus"
)

// ExplainEffective fills Effective and Because for the settings of
// `memoryd config` whose value in effect is resolved at run time:
// llm.provider when it is not set, the models when the opencode provider
// uses OpenCode's own (asked with ModelCheckTimeout), and
// search.thesaurus when it is not set (the WordNet found, or off).
func ExplainEffective(ctx context.Context, cfg config.Config, settings []config.ReportSetting) {
	provider, because := llm.EffectiveProvider(cfg.LLM.Provider)
	model := ""
	for i := range settings {
		s := &settings[i]
		switch s.Key {
		case "llm.provider":
			if cfg.LLM.Provider == "" {
				s.Effective, s.Because = provider, because
			}
		case "extract.model":
			if provider != "opencode" || s.Origin != "default" {
				model = cfg.Extract.Model
				continue
			}
			model = explainOpenCodeModel(ctx, cfg, s)
		case "search.thesaurus":
			if cfg.Search.Thesaurus == "" {
				s.Effective, s.Because = effectiveThesaurus()
			}
		case "compact.model":
			if s.Origin == "default" && model != "" && model != cfg.Compact.Model {
				s.Effective, s.Because = model, "compact.model is not set: the extract model"
			}
		}
	}
}

// explainOpenCodeModel explains extract.model left to OpenCode's own
// model, and returns the model in effect.
func explainOpenCodeModel(ctx context.Context, cfg config.Config, s *config.ReportSetting) string {
	ctx, cancel := context.WithTimeout(ctx, ModelCheckTimeout)
	m, err := llm.OpenCodeDefaultModel(ctx, "", nil)
	cancel()
	switch {
	case err != nil:
		s.Effective, s.Because = cfg.Extract.Model, "extract.model is not set and OpenCode's own model could not be read ("+err.Error()+"): the built-in default is used"
		return cfg.Extract.Model
	case m == "":
		s.Effective, s.Because = cfg.Extract.Model, "extract.model is not set and OpenCode has no small_model or model: the built-in default is used"
		return cfg.Extract.Model
	}
	s.Effective, s.Because = m, "extract.model is not set: the opencode provider uses OpenCode's own small_model (else its model)"
	return m
}

// effectiveThesaurus is the WordNet folder search uses when
// search.thesaurus is not set, and why.
func effectiveThesaurus() (string, string) {
	t := thesaurus.Find()
	if t == nil {
		return thesaurus.Off, "search.thesaurus is not set and WordNet is not in $WNSEARCHDIR nor " + strings.Join(thesaurus.Dirs, ", ")
	}
	defer t.Close()
	return t.Dir(), "search.thesaurus is not set: WordNet is there"
}
