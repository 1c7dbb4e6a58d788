package facts

import (
	"context"
	"strings"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// HandLines returns the lines of the fact cur's body that a person wrote.
// Each line belongs to whoever brought it into the file: the writer of the
// oldest commit, in the file's recent history (historyDepth commits), after
// which the line was always there — a model (an extraction, a compaction,
// an agent's save) or a person (a hand edit, a memory command, an undo).
// Lines not committed yet, and lines older than the history read, are a
// person's. A model's update may not remove any of them.
func HandLines(ctx context.Context, repo *gitstore.Repo, cur *index.Memory) ([]string, error) {
	model := map[string]bool{} // lines a model brought in
	if repo != nil {
		log, err := repo.FileLog(ctx, cur.File, historyDepth)
		if err != nil {
			return nil, err
		}
		var prev map[string]bool
		for i := len(log) - 1; i >= 0; i-- { // oldest first
			c := log[i]
			lines := map[string]bool{}
			if data, err := repo.Show(ctx, c.Hash, c.Files[0]); err == nil {
				if m, err := index.Parse(c.Files[0], data); err == nil {
					lines = lineSet(m.Body)
				}
			}
			for l := range lines {
				if !prev[l] {
					model[l] = c.Message.ModelWritten()
				}
			}
			prev = lines
		}
	}
	var hand []string
	for _, l := range strings.Split(cur.Body, "\n") {
		if t := strings.TrimSpace(l); t != "" && !model[t] {
			hand = append(hand, t)
		}
	}
	return hand, nil
}

// historyDepth bounds how many of a fact's commits HandLines reads.
const historyDepth = 50

// Dropped returns the lines of hand that body no longer holds.
func Dropped(hand []string, body string) []string {
	have := lineSet(body)
	var gone []string
	for _, l := range hand {
		if !have[l] {
			gone = append(gone, l)
		}
	}
	return gone
}

func lineSet(body string) map[string]bool {
	set := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			set[t] = true
		}
	}
	return set
}
