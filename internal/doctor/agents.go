package doctor

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/shell"
	"github.com/memoryd/memoryd/internal/transcript"

	"github.com/memoryd/memoryd/internal/install"
)

// agents checks each agent's wiring that is there (nothing is asked of an
// agent the user never wired): that every command it runs names a memoryd
// binary and a config file that exist, that nothing is half wired, and that
// Codex's copy of the index is current.
func (d *doctor) agents() {
	if d.o.InstallErr != nil {
		return
	}
	o := d.o.Install
	d.openCodeAgent(o)
	d.claudeAgent(o)
	d.codexAgent(o)
}

// fixFor is the command that rewires one agent.
func (d *doctor) fixFor(flag string) string {
	fix := "memoryd install --" + flag
	if d.o.Dir != "" {
		fix += " --memory-dir " + shell.Quote(d.o.Dir)
	}
	return fix
}

// commandProblem says what is wrong with a memoryd command line an agent
// runs, or "".
func commandProblem(cmd []string) string {
	if len(cmd) == 0 {
		return "its command cannot be read"
	}
	if fi, err := os.Stat(cmd[0]); err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Sprintf("it runs %s, which is not an executable file", cmd[0])
	}
	for i, a := range cmd {
		if a == "--config" && i+1 < len(cmd) {
			if _, err := os.Stat(cmd[i+1]); err != nil {
				return fmt.Sprintf("it reads the config file %s, which is missing", cmd[i+1])
			}
		}
	}
	return ""
}

func (d *doctor) openCodeAgent(o install.Options) {
	dir := install.OpenCodeDir(o.Home, o.XDGConfigHome)
	file, cmd, err := install.OpenCodeMCP(dir)
	switch {
	case err != nil:
		d.bad("opencode mcp", err.Error(), "fix the file, then "+d.fixFor("opencode"))
	case file == "":
	case commandProblem(cmd) != "":
		d.bad("opencode mcp", file+": memoryd's MCP server will not start: "+commandProblem(cmd), d.fixFor("opencode"))
	default:
		d.ok("opencode mcp", file)
	}
	plugin := install.OpenCodePluginFile(dir)
	data, err := os.ReadFile(plugin)
	if errors.Is(err, fs.ErrNotExist) {
		if file != "" {
			d.bad("opencode plugin", "the MCP server is wired but "+plugin+" is missing: sessions do not get their project's memory index", d.fixFor("opencode"))
		}
		return
	}
	bin, ours := install.OpenCodePluginBinary(data)
	switch {
	case err != nil:
		d.bad("opencode plugin", err.Error(), "")
	case !ours:
	case commandProblem([]string{bin}) != "":
		d.bad("opencode plugin", plugin+" adds no project index: "+commandProblem([]string{bin}), d.fixFor("opencode"))
	default:
		d.ok("opencode plugin", plugin)
	}
}

func (d *doctor) claudeAgent(o install.Options) {
	settings, servers := install.ClaudeFiles(o.Home, o.ClaudeConfigDir)
	w, err := install.ReadClaude(settings, servers)
	if err != nil {
		d.bad("claude code", err.Error(), "fix the file, then "+d.fixFor("claude"))
		return
	}
	if w.MCPCommand == nil && w.HookCommand == "" && len(w.Allowed) == 0 {
		return // not wired
	}
	var missing []string
	switch {
	case w.MCPCommand == nil:
		missing = append(missing, "the MCP server (mcpServers.memoryd in "+servers+")")
	case commandProblem(w.MCPCommand) != "":
		d.bad("claude code", "memoryd's MCP server will not start: "+commandProblem(w.MCPCommand), d.fixFor("claude"))
		return
	}
	switch {
	case w.HookCommand == "":
		missing = append(missing, "the SessionStart hook (in "+settings+")")
	case commandProblem(w.Hook) != "":
		d.bad("claude code", "the SessionStart hook loads no memory: "+commandProblem(w.Hook), d.fixFor("claude"))
		return
	}
	if len(w.Allowed) < len(install.ClaudeAllowed()) {
		missing = append(missing, "permission for the read-only memory tools (permissions.allow in "+settings+")")
	}
	if len(missing) > 0 {
		d.bad("claude code", "memoryd is only partly wired: missing "+strings.Join(missing, ", "), d.fixFor("claude"))
		return
	}
	d.ok("claude code", "MCP server, SessionStart hook, read-only tools allowed")
}

func (d *doctor) codexAgent(o install.Options) {
	home := install.CodexHome(o.Home, o.CodexHome)
	agents, _ := os.ReadFile(filepath.Join(home, "AGENTS.md"))
	toml, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	body, hasIndex := install.CodexIndex(agents)
	cmd, hasServer := install.CodexMCP(toml)
	if !hasIndex && !hasServer {
		return // not wired
	}
	switch {
	case !hasServer:
		d.bad("codex", "the memory index is in AGENTS.md but the MCP server is missing from "+filepath.Join(home, "config.toml"), d.fixFor("codex"))
		return
	case commandProblem(cmd) != "":
		d.bad("codex", "memoryd's MCP server will not start: "+commandProblem(cmd), d.fixFor("codex"))
		return
	case !hasIndex:
		d.bad("codex", "the MCP server is wired but the memory index block is missing from "+filepath.Join(home, "AGENTS.md"), d.fixFor("codex"))
		return
	}
	if d.o.FolderErr == nil {
		index, err := os.ReadFile(filepath.Join(d.o.Dir, "MEMORY.md"))
		if err == nil && !bytes.Equal([]byte(body), []byte(install.CodexIndexBody(index))) {
			d.bad("codex", "the memory index in "+filepath.Join(home, "AGENTS.md")+" is older than MEMORY.md (the daemon refreshes it on every rebuild; is it running?)",
				"memoryd start   (or: "+d.fixFor("codex")+")")
			return
		}
	}
	d.ok("codex", "AGENTS.md index block, MCP server")
}

func (d *doctor) openCode() {
	if _, err := exec.LookPath("opencode"); err != nil {
		d.ok("opencode", "not installed (only needed for the opencode provider and OpenCode transcripts)")
		return
	}
	d.ok("opencode", "found")
	dir := d.o.OpenCodeDir
	if d.o.FolderErr != nil {
		return
	}
	file, missing, err := install.MissingInstructions(dir, d.o.Dir)
	if err != nil {
		d.bad("opencode instructions", err.Error(), "fix the file, then memoryd install --opencode")
		return
	}
	if len(missing) > 0 && len(missing) == len(install.Instructions(d.o.Dir)) && !d.openCodeWired() {
		d.unused("opencode instructions", "memoryd is not wired into OpenCode (memoryd install --opencode wires it)")
		return
	}
	if len(missing) > 0 {
		where := "OpenCode's global config"
		if file != "" {
			where = file
		}
		d.bad("opencode instructions", fmt.Sprintf("%s does not load %s", where, strings.Join(missing, ", ")),
			"memoryd install --opencode --memory-dir "+shell.Quote(d.o.Dir))
		return
	}
	d.ok("opencode instructions", file)
}

// openCodeWired reports whether any of memoryd's wiring is in OpenCode's
// global config: the MCP server or memoryd's plugin.
func (d *doctor) openCodeWired() bool {
	dir := d.o.OpenCodeDir
	if file, _, err := install.OpenCodeMCP(dir); err != nil || file != "" {
		return true
	}
	data, err := os.ReadFile(install.OpenCodePluginFile(dir))
	if err != nil {
		return false
	}
	_, ours := install.OpenCodePluginBinary(data)
	return ours
}

// transcripts reports which transcript stores extraction reads.
func (d *doctor) transcripts() {
	if !d.o.Config.Extract.Enabled {
		d.ok("transcripts", "extraction is off (extract.enabled)")
		return
	}
	srcs := d.o.Sources
	var parts []string
	srcs.Each(func(s transcript.Source) {
		parts = append(parts, s.Name()+" ("+strings.Join(s.WatchPaths(), ", ")+")")
	})
	if err := srcs.Err(); err != nil {
		d.bad("transcripts", "a transcript store could not be opened: "+err.Error(),
			"check the file's permissions, or point extract.opencode_db (MEMORY_OPENCODE_DB) at the right database")
	}
	switch {
	case len(parts) > 0:
		d.ok("transcripts", strings.Join(parts, "; "))
	case srcs.Err() == nil:
		d.ok("transcripts", "no agent sessions yet (looked for OpenCode, Claude Code and Codex); extraction starts when one appears")
	}
}
