package compactor

import (
	"fmt"
	"strings"

	"github.com/memoryd/memoryd/internal/index"
)

// instructions open the system prompt; PROTOCOL.md follows them.
const instructions = `You maintain the long-term memory of an AI coding agent: a folder of markdown files, one fact per file. Read the files you are given and answer with a plan of operations that leaves the store cleaner without losing anything true.

Be conservative. These files are the agent's durable knowledge of the user: a wrong merge loses real information, while a duplicate left in place costs little. Prefer keeping over losing. When unsure, leave a file alone. An empty plan is a good answer. Nothing is ever deleted: a fact leaves the index only by being merged into one that keeps all it said, or superseded by a newer fact.

Operations:
- merge: two or more files that state the same fact (near-duplicates) become one file. Give the new file's type, name, description and body in "into". The body must keep every detail of every merged file, including names, numbers, paths, "Why:" lines and [[links]]; a merge that drops one is refused. The merged files are removed.
- supersede: a newer file says the older one is no longer true (a moved deadline, a changed decision). Name the old one in "file" and the newer one in "by". The old file is kept as history, out of the index. Supersede only when one file clearly replaces the other; when it is not known which is true now, flag them instead. There is no delete.
- rewrite: one file rewritten in place (a clearer description, a tidier body) without losing any detail.
- flag: files that contradict each other when it is not known which one is true now. Never resolve a contradiction yourself: do not merge, supersede or rewrite files that disagree; flag them and keep them all. Explain the disagreement in "note".

Rules:
- Name files exactly as given in file="...". Only those files exist for you; never name MEMORY.md, _CONFLICTS.md, PROTOCOL.md or a file you were not shown.
- Never change, merge or supersede a file marked readonly="true" (you may flag it).
- A file appears in at most one merge, supersede (as "file") or rewrite.
- "type" is one of user, feedback, project, reference. "name" is kebab-case: lower-case letters, digits and single hyphens, at most 64 characters; the file becomes <type>-<name>.md.
- Every op says why in "reason" (for flag: "note").

Answer with one JSON object and nothing else:
{"ops": [
  {"op": "merge", "files": ["feedback-a.md", "feedback-b.md"], "into": {"type": "feedback", "name": "a", "description": "...", "body": "..."}, "reason": "..."},
  {"op": "supersede", "file": "project-old.md", "by": "project-new.md", "reason": "the deadline moved"},
  {"op": "rewrite", "file": "user-email.md", "description": "...", "body": "...", "reason": "..."},
  {"op": "flag", "files": ["user-a.md", "user-b.md"], "note": "they disagree about ..."}
]}
When nothing should change, answer {"ops": []}.

The rules for memory files (the folder's PROTOCOL.md) follow.

`

// systemPrompt is the instructions followed by the folder's protocol.
func systemPrompt(protocol []byte) string {
	return instructions + strings.TrimSpace(string(protocol)) + "\n"
}

// render is one memory file as the model sees it. Its length is what the
// budget counts.
func render(m *index.Memory) string {
	var b strings.Builder
	b.Grow(len(m.Body) + len(m.Description) + len(m.File) + 96)
	b.WriteString(`<memory file="` + attr(m.File) + `" type="` + attr(m.Type) + `"`)
	if index.NewMemory(m.Type, m.Name, "", "").File != m.File {
		// The name is not evident from the file name.
		b.WriteString(` name="` + attr(m.Name) + `"`)
	}
	if m.Readonly {
		b.WriteString(` readonly="true"`)
	}
	b.WriteString(">\n")
	if m.Title != "" {
		b.WriteString("title: " + oneLine(m.Title) + "\n")
	}
	b.WriteString("description: " + oneLine(m.Description) + "\n\n")
	b.WriteString(strings.TrimRight(m.Body, "\n"))
	b.WriteString("\n</memory>\n\n")
	return b.String()
}

// attr keeps a value printable inside a quoted attribute without escapes
// the model would copy back: quotes and line breaks become spaces.
func attr(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// userPrompt introduces the batch and lists its files.
func userPrompt(b batch, n, total int) string {
	var sb strings.Builder
	sb.Grow(b.size + 256)
	if total == 1 {
		fmt.Fprintf(&sb, "The memory store: %d files.\n\n", len(b.items))
	} else {
		fmt.Fprintf(&sb, "Part %d of %d of the memory store: %d related files. The other parts are planned separately; name only files shown here.\n\n",
			n, total, len(b.items))
	}
	for _, it := range b.items {
		sb.WriteString(it.text)
	}
	sb.WriteString("Answer with the JSON plan.\n")
	return sb.String()
}
