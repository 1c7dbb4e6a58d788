package facts

// Global is the project a writer names for a fact that holds in every
// project (`memoryd add --global`, MCP `memory_save` with project
// "global").
const Global = "global"

// Scoped is f with the project it holds in, by the one rule every writer
// follows (the CLI and the MCP server alike): Global means none; no
// project means here, the writer's current project, for a fact of type
// project or one that cites files (cited paths belong to a project; a user
// fact is about the person, never a project); else the fact is global.
func (f Fact) Scoped(here string) Fact {
	switch {
	case f.Project == Global:
		f.Project = ""
	case f.Project == "" && (f.Type == "project" || len(f.Cites) > 0 && f.Type != "user"):
		f.Project = here
	}
	return f
}
