package doctor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/memoryd/memoryd/internal/install"
)

// hookDeadline is how long doctor lets a hook run: the agents give it 10 s.
const hookDeadline = 10 * time.Second

// HookFindings checks each agent hook memoryd installed by running it the
// way the agent does — through sh, in the current directory, a probe
// payload on stdin — and, for Codex, that the hook is trusted (Codex skips
// an untrusted hook without a word). An agent without memoryd's hooks is
// not checked.
func HookFindings(ctx context.Context, o install.Options) []Finding {
	p := &hookProbes{ctx: ctx}
	p.claude(o)
	p.codex(o)
	p.openCode(o)
	return p.out
}

// hookProbes gathers the findings of HookFindings.
type hookProbes struct {
	ctx context.Context
	out []Finding
}

func hookFix(agent string) string { return "memoryd install --" + agent }

// check runs the hook command for event, as the agent does.
func (p *hookProbes) check(name, command, event string) {
	took, msg := runHookProbe(p.ctx, command, event)
	if msg != "" {
		p.out = append(p.out, Finding{Check: name, Problem: msg, Fix: hookFix(strings.Fields(name)[0])})
		return
	}
	p.out = append(p.out, Finding{Check: name, Note: fmt.Sprintf("ran in %s", took.Round(time.Millisecond))})
}

func (p *hookProbes) claude(o install.Options) {
	settings, servers := install.ClaudeFiles(o.Home, o.ClaudeConfigDir)
	w, err := install.ReadClaude(settings, servers)
	if err != nil || w.HookCommand == "" {
		return
	}
	p.check("claude SessionStart hook", w.HookCommand, "SessionStart")
	if data, _ := os.ReadFile(settings); install.ClaudeAutoMemory(data) && os.Getenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY") == "" {
		p.out = append(p.out, Finding{Check: "claude auto-memory", Fix: hookFix("claude") + "   (it sets " + install.ClaudeAutoMemoryKey + ": false)",
			Problem: "Claude Code's own auto-memory is on beside memoryd: the model is told to save facts in two places"})
	}
	if w.PromptCommand == "" {
		p.out = append(p.out, Finding{Check: "claude UserPromptSubmit hook", Fix: hookFix("claude"),
			Problem: "missing from " + settings + ": prompts get no recalled facts"})
	} else {
		p.check("claude UserPromptSubmit hook", w.PromptCommand, "UserPromptSubmit")
	}
}

func (p *hookProbes) codex(o install.Options) {
	home := install.CodexHome(o.Home, o.CodexHome)
	config, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	agents, _ := os.ReadFile(filepath.Join(home, "AGENTS.md"))
	for _, f := range []struct {
		name  string
		stray []int
	}{{"AGENTS.md", install.CodexAgentsStray(agents)}, {"config.toml", install.CodexConfigStray(config)}} {
		if len(f.stray) > 0 {
			p.out = append(p.out, Finding{Check: "codex " + f.name, Fix: "delete or fix those lines by hand (memoryd leaves them alone)",
				Problem: fmt.Sprintf("%s: line %s looks like a memoryd marker but is not part of memoryd's own complete block "+
					"(a half-deleted block, or a marker quoted in your text)", filepath.Join(home, f.name), strings.Trim(fmt.Sprint(f.stray), "[]"))})
		}
	}
	if _, wired := install.CodexMCP(config); wired {
		p.codexHooks(home, config)
	}
}

func (p *hookProbes) codexHooks(home string, config []byte) {
	path := filepath.Join(home, "hooks.json")
	data, _ := os.ReadFile(path)
	hooks, err := install.CodexHooks(path, data)
	if err != nil {
		p.out = append(p.out, Finding{Check: "codex hooks", Problem: err.Error(), Fix: "fix the file, then " + hookFix("codex")})
	} else if len(hooks) < 2 {
		p.out = append(p.out, Finding{Check: "codex hooks", Fix: hookFix("codex"),
			Problem: "memoryd's SessionStart and UserPromptSubmit hooks are not both in " + path + ": sessions miss their project's index or their recalled facts"})
	}
	for _, h := range hooks {
		name := "codex " + h.Event + " hook"
		if trusted, ok := install.CodexHookTrusted(config, h); !trusted {
			why := "not trusted in " + filepath.Join(home, "config.toml") + ": Codex skips it silently"
			if !ok {
				why = filepath.Join(home, "config.toml") + " is not valid TOML: Codex trusts no hook"
			}
			p.out = append(p.out, Finding{Check: name, Problem: why, Fix: hookFix("codex") + "   (or trust it in Codex: /hooks)"})
			continue
		}
		p.check(name, h.Command, h.Event)
	}
}

func (p *hookProbes) openCode(o install.Options) {
	plugin := install.OpenCodePluginFile(install.OpenCodeDir(o.Home, o.XDGConfigHome))
	if data, err := os.ReadFile(plugin); err == nil {
		if _, ours := install.OpenCodePluginBinary(data); ours && !bytes.Contains(data, []byte(`"recall"`)) {
			p.out = append(p.out, Finding{Check: "opencode plugin recall", Fix: hookFix("opencode"),
				Problem: plugin + " is an older memoryd plugin: prompts get no recalled facts"})
		}
	}
}

// runHookProbe runs command as an agent runs its hook for event and says
// what is wrong ("" when nothing is): it must exit 0 within hookDeadline.
// The probe has no session id, so recall records nothing.
func runHookProbe(ctx context.Context, command, event string) (time.Duration, string) {
	ctx, cancel := context.WithTimeout(ctx, hookDeadline)
	defer cancel()
	wd, _ := os.Getwd()
	payload := fmt.Sprintf(`{"hook_event_name":%q,"cwd":%q,"source":"startup","prompt":"memoryd doctor checks this hook"}`, event, wd)
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdin = strings.NewReader(payload)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	switch {
	case ctx.Err() != nil:
		return took, fmt.Sprintf("did not answer within %s: the agent gives up on it", hookDeadline)
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return took, "fails: " + msg
	}
	return took, ""
}
