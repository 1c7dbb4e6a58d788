// memoryd: adds the memory index of the session's project to OpenCode's
// system prompt (MEMORY.md itself comes through "instructions"), on each
// user message the few facts relevant to it that the session has not seen,
// before a tool reads or edits a file the facts about that file, and after
// a shell command fails the facts that mention that command.
// Written by `memoryd install --opencode`; `memoryd uninstall` removes it.
const MEMORYD = "{{binary}}";
const CONFIG = "{{config}}";

// The tools that read or edit one file: only their calls run recall-tool.
const FILE_TOOLS = new Set(["read", "edit", "write"]);

// The standard output of `memoryd ARGS --config CONFIG` with input on its
// standard input, trimmed; "" on any failure: a missing or older memoryd
// must never get in the user's way.
async function memoryd(args, input) {
  try {
    const proc = Bun.spawn([MEMORYD, ...args, "--config", CONFIG], {
      stdin: input === undefined ? "ignore" : new Blob([input]),
      stdout: "pipe",
      stderr: "ignore",
    });
    const timer = setTimeout(() => proc.kill(), 5000);
    const text = await new Response(proc.stdout).text();
    const code = await proc.exited;
    clearTimeout(timer);
    return code === 0 ? text.trim() : "";
  } catch {
    return "";
  }
}

export const MemorydPlugin = async ({ directory }) => {
  // Per session: the project's index, then what recall added, in order.
  // The system prompt only grows, so what the model was told stays with
  // it (recall tells a session each fact once).
  const texts = new Map();
  // The command of each bash call under way, by call id, for its failure.
  const commands = new Map();
  const session = async (key) => {
    if (!texts.has(key)) {
      texts.set(key, [await memoryd(["context", "--project-only", "--dir", directory])]);
    }
    return texts.get(key);
  };
  return {
    "chat.message": async (input, output) => {
      const key = input?.sessionID ?? "";
      const prompt = (output?.parts ?? [])
        .filter((p) => p?.type === "text" && !p.synthetic && typeof p.text === "string")
        .map((p) => p.text)
        .join("\n");
      if (!prompt.trim()) return;
      const list = await session(key);
      const text = await memoryd(
        ["recall", "--project-only", "--format", "text"],
        JSON.stringify({ session_id: key, cwd: directory, prompt }),
      );
      if (text) list.push(text);
    },
    // Before a tool reads or edits a file, the facts that cite or name it
    // (memoryd recall-tool), for the model's next request.
    "tool.execute.before": async (input, output) => {
      if (input?.tool === "bash" && typeof output?.args?.command === "string") {
        commands.set(input?.callID ?? "", output.args.command);
        return;
      }
      const file = output?.args?.filePath;
      if (!FILE_TOOLS.has(input?.tool) || typeof file !== "string" || !file) return;
      const key = input?.sessionID ?? "";
      const list = await session(key);
      const text = await memoryd(
        ["recall-tool"],
        JSON.stringify({ session_id: key, cwd: directory, tool_input: { filePath: file } }),
      );
      if (text) list.push(text);
    },
    // After a bash call that exited non-zero, the facts that mention its
    // command (memoryd recall-tool), for the model's next request.
    "tool.execute.after": async (input, output) => {
      if (input?.tool !== "bash") return;
      const command = commands.get(input?.callID ?? "") ?? input?.args?.command;
      commands.delete(input?.callID ?? "");
      const exit = output?.metadata?.exit;
      if (typeof command !== "string" || typeof exit !== "number" || exit === 0) return;
      const key = input?.sessionID ?? "";
      const list = await session(key);
      const text = await memoryd(
        ["recall-tool"],
        JSON.stringify({ session_id: key, cwd: directory, tool_input: { command }, exit_code: exit }),
      );
      if (text) list.push(text);
    },
    "experimental.chat.system.transform": async (input, output) => {
      for (const text of await session(input?.sessionID ?? "")) {
        if (text) output.system.push(text);
      }
    },
  };
};
