// memoryd: adds the memory index of the session's project to OpenCode's
// system prompt (MEMORY.md itself comes through "instructions").
// Written by `memoryd install --opencode`; `memoryd uninstall` removes it.
const MEMORYD = "{{binary}}";
const CONFIG = "{{config}}";

// The text of `memoryd context --project-only` for dir, "" on any failure:
// a missing or older memoryd must never get in the user's way.
async function projectContext(dir) {
  try {
    const proc = Bun.spawn([MEMORYD, "context", "--project-only", "--dir", dir, "--config", CONFIG], {
      stdin: "ignore",
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
  // One text per session, so that its system prompt stays the same from
  // request to request.
  const texts = new Map();
  return {
    "experimental.chat.system.transform": async (input, output) => {
      const key = input?.sessionID ?? "";
      if (!texts.has(key)) texts.set(key, await projectContext(directory));
      const text = texts.get(key);
      if (text) output.system.push(text);
    },
  };
};
