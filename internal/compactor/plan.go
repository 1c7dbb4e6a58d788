package compactor

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/memoryd/memoryd/internal/commitmsg"
	"github.com/memoryd/memoryd/internal/index"
	"github.com/memoryd/memoryd/internal/llm"
	"github.com/memoryd/memoryd/internal/protocol"
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
func (c *Compactor) plan(ctx context.Context, snap index.Snapshot, res *Result, budget int) ([]*planned, error) {
	ck := newChecker(snap, c.log, res, budget)
	all, items := ck.dedupe(snap.Memories)
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
	system := systemPrompt(protocol.Load(c.dir))
	for i := range batches {
		b := &batches[i]
		if c.opts.Progress != nil {
			c.opts.Progress(i+1, len(batches), res.Tokens)
		}
		ops, err := c.ask(ctx, system, b, i+1, len(batches), res)
		if errors.Is(err, llm.ErrBudgetSpent) {
			// The day's budget is spent: no further request. What the
			// answered batches planned is still applied; the pass says
			// where it stopped.
			res.Stopped = err
			res.Problems = append(res.Problems, fmt.Sprintf("stopped before request %d of %d: %v", i+1, len(batches), errors.Unwrap(err)))
			c.log.Warn("compaction stopped at the daily token budget", "request", i+1, "of", len(batches), "err", err)
			break
		}
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
	if errors.Is(err, llm.ErrBudgetSpent) {
		res.Calls--
		res.CharsSent -= len(req.System) + len(req.Prompt)
		return nil, fmt.Errorf("compaction: %w", err)
	}
	res.Tokens += resp.Tokens(req)
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
// The removed files are marked used, and items, the files left for the
// model, leaves them out.
func (ck *checker) dedupe(mems []*index.Memory) (merges []*planned, items []item) {
	all := prepareItems(mems)
	groups := map[string][]int{}
	var keys []string
	for i, it := range all {
		if it.canon == "" {
			continue
		}
		key := it.mem.Type + "\x00" + it.canon
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], i)
	}
	for _, key := range keys {
		if g := groups[key]; len(g) > 1 {
			if p := ck.dedupeGroup(all, g); p != nil {
				merges = append(merges, p)
			}
		}
	}
	items = make([]item, 0, len(all))
	for _, it := range all {
		if ck.used[it.mem.File] == "" {
			items = append(items, it)
		}
	}
	return merges, items
}

func (ck *checker) dedupeGroup(all []item, g []int) *planned {
	keep := all[g[0]].mem
	for _, i := range g {
		if all[i].mem.Readonly {
			keep = all[i].mem
			break
		}
	}
	p := &planned{dedupe: true, mems: []*index.Memory{keep}}
	p.Op = Op{Op: OpMerge, Files: []string{keep.File},
		Reason: "identical text, kept " + keep.File + " (deterministic dedupe)"}
	for _, i := range g {
		m := all[i].mem
		if m == keep || m.Readonly {
			continue
		}
		p.mems = append(p.mems, m)
		p.Files = append(p.Files, m.File)
		ck.used[m.File] = "dedupe"
	}
	if len(p.mems) < 2 {
		return nil
	}
	return p
}

// prepareItems renders every memory and computes its canonical body, on a
// few goroutines (a large store spends most of its planning time here).
func prepareItems(mems []*index.Memory) []item {
	items := make([]item, len(mems))
	workers := min(runtime.GOMAXPROCS(0), 8, (len(mems)+255)/256)
	var wg sync.WaitGroup
	for w := range max(workers, 1) {
		wg.Go(func() {
			for i := w; i < len(mems); i += max(workers, 1) {
				items[i] = item{mem: mems[i], text: render(mems[i]), canon: index.Canonical(mems[i].Body)}
			}
		})
	}
	wg.Wait()
	return items
}

// commitMessage is the compaction commit's message: the subject with the
// counts, then the checkpoint and one line per applied and skipped op, and
// the trailers: a compaction by a model, and the tokens the pass spent
// ("Tokens: 1234"; 0 when only deterministic merges ran).
func commitMessage(res *Result) commitmsg.Message {
	var b strings.Builder
	if res.Checkpoint != "" {
		b.WriteString("Checkpoint: " + res.Checkpoint + "\n")
	}
	for _, op := range res.Applied {
		b.WriteString("- " + op.String() + "\n")
	}
	for _, s := range res.Skipped {
		b.WriteString("- skipped " + clip(s.Op.String(), 120) + ": " + s.Reason + "\n")
	}
	return commitmsg.Message{Subject: commitmsg.CompactionPrefix + " (" + res.Summary() + ")", Body: b.String(),
		Kind: commitmsg.KindCompaction, Writer: commitmsg.Model, Tokens: res.Tokens}
}
