package config

// The jobs' models: extract.model, and compact.model, which is
// extract.model's unless set. A provider with models of its own (OpenCode)
// stands in for the ones the user did not configure.

// DefaultModels are the names of the job models the user did not
// configure (extract.model, compact.model at their defaults), which a
// provider's own model may replace (UseModel).
func (c *Config) DefaultModels() []string {
	var out []string
	if c.Origin("extract.model").Source == FromDefault {
		out = append(out, c.Extract.Model)
	}
	if c.Origin("compact.model").Source == FromDefault {
		out = append(out, c.Compact.Model)
	}
	return out
}

// UseModel makes m the model of the jobs whose model is not configured; ""
// changes nothing, and neither does m when extract.model is configured
// (compact.model then follows it).
func (c *Config) UseModel(m string) {
	if m == "" || c.Origin("extract.model").Source != FromDefault {
		return
	}
	if c.Origin("compact.model").Source == FromDefault {
		c.Compact.Model = m
	}
	c.Extract.Model = m
}
