package compactor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memoryd/memoryd/index"
	"github.com/memoryd/memoryd/llm"
	"github.com/memoryd/memoryd/protocol"
)

// planned is one op of a pass with what validation decided.
type planned struct {
	Op
	mems   []*index.Memory // the files it acts on, as scanned (merge: sources in order)
	target string          // merge: the file written; "" for a dedupe merge
	dedupe bool            // a deterministic merge: keep mems[0] as is, remove the rest
	skip   string          // why it is not applied; "" means apply
}

// plan makes the pass's ops: deterministic dedupe first, then the model's
// plans, batch by batch, each validated. Skipped ops are recorded in res.
func (c *Compactor) plan(ctx context.Context, snap index.Snapshot, res *Result) ([]*planned, error) {
	ck := newChecker(snap, c.log, res)
	all := ck.dedupe(snap.Memories)
	items := make([]item, 0, len(snap.Memories))
	for _, m := range snap.Memories {
		if ck.used[m.File] == "" {
			items = append(items, item{mem: m, text: render(m)})
		}
	}
	if len(items) < 2 {
		return all, nil
	}
	batches, tooLarge := makeBatches(items, c.opts.Budget)
	for _, m := range tooLarge {
		res.TooLarge = append(res.TooLarge, m.File)
		c.log.Warn("file not sent: its text alone exceeds the compaction budget",
			"file", m.File, "budget", c.opts.Budget)
	}
	res.Batches = len(batches)
	system := systemPrompt(protocol.Load(c.opts.Dir))
	for i := range batches {
		b := &batches[i]
		ops, err := c.ask(ctx, system, b, i+1, len(batches), res)
		if err != nil {
			return nil, err
		}
		if ops == nil {
			continue
		}
		all = append(all, ck.validate(ops, b, i+1)...)
	}
	return all, nil
}

// ask sends one batch and parses the answer. An unusable answer is
// recorded as a problem and gives no ops (nil); an LLM failure is an error.
func (c *Compactor) ask(ctx context.Context, system string, b *batch, n, total int, res *Result) ([]Op, error) {
	req := llm.Request{Task: Task, Model: c.opts.Model, System: system,
		Prompt: userPrompt(*b, n, total), JSON: true}
	res.Calls++
	res.CharsSent += len(req.System) + len(req.Prompt)
	start := time.Now()
	resp, err := c.opts.LLM.Complete(ctx, req)
	res.LLMTime += time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("compaction: ask the model (request %d of %d): %w", n, total, err)
	}
	ops, bad, err := ParsePlan(resp.Text)
	if err != nil {
		res.badPlans++
		res.Problems = append(res.Problems, fmt.Sprintf("request %d of %d: %v", n, total, err))
		c.log.Warn("unusable compaction plan", "request", n, "of", total, "err", err)
		return nil, nil
	}
	for _, why := range bad {
		res.Skipped = append(res.Skipped, Skipped{Op: Op{Op: "?"}, Reason: why})
		c.log.Warn("op skipped", "request", n, "reason", why)
	}
	if ops == nil {
		ops = []Op{}
	}
	return ops, nil
}

// dedupe plans the deterministic merges: files of the same type whose
// bodies have the same non-empty canonical text. The kept file is the first
// readonly one, else the first by name; readonly duplicates are kept too.
// The removed files are marked used, so the model never sees them.
func (ck *checker) dedupe(mems []*index.Memory) []*planned {
	groups := map[string][]*index.Memory{}
	var keys []string
	for _, m := range mems {
		body := index.Canonical(m.Body)
		if body == "" {
			continue
		}
		key := m.Type + "\x00" + body
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], m)
	}
	var out []*planned
	for _, key := range keys {
		g := groups[key]
		if len(g) < 2 {
			continue
		}
		keep := g[0]
		for _, m := range g {
			if m.Readonly {
				keep = m
				break
			}
		}
		p := &planned{dedupe: true, mems: []*index.Memory{keep}}
		p.Op = Op{Op: OpMerge, Files: []string{keep.File},
			Reason: "identical text, kept " + keep.File + " (deterministic dedupe)"}
		for _, m := range g {
			if m == keep || m.Readonly {
				continue
			}
			p.mems = append(p.mems, m)
			p.Files = append(p.Files, m.File)
			ck.used[m.File] = "dedupe"
		}
		if len(p.mems) > 1 {
			out = append(out, p)
		}
	}
	return out
}

// commitMessage is the compaction commit's message: the subject with the
// counts, then the checkpoint and one line per applied and skipped op.
func commitMessage(res *Result) string {
	var b strings.Builder
	b.WriteString(CompactionPrefix + " (" + res.Summary() + ")\n\n")
	if res.Checkpoint != "" {
		b.WriteString("Checkpoint: " + res.Checkpoint + "\n")
	}
	for _, op := range res.Applied {
		b.WriteString("- " + op.String() + "\n")
	}
	for _, s := range res.Skipped {
		b.WriteString("- skipped " + clip(s.Op.String(), 120) + ": " + s.Reason + "\n")
	}
	return b.String()
}
