package facts

import (
	"context"
	"strings"

	"github.com/memoryd/memoryd/internal/gitstore"
	"github.com/memoryd/memoryd/internal/index"
)

// HandLines returns the lines of the fact cur's body that a person wrote:
// the non-blank lines that are not in the body as a model last committed
// it (every line, when no model ever wrote the file). A model's update may
// not remove any of them.
func HandLines(ctx context.Context, repo *gitstore.Repo, cur *index.Memory) ([]string, error) {
	var model map[string]bool
	if repo != nil {
		log, err := repo.FileLog(ctx, cur.File, 200)
		if err != nil {
			return nil, err
		}
		for _, c := range log {
			if !c.Message.ModelWritten() {
				continue
			}
			data, err := repo.Show(ctx, c.Hash, c.Files[0])
			if err != nil {
				break // the file was deleted in that commit
			}
			if m, err := index.Parse(c.Files[0], data); err == nil {
				model = lineSet(m.Body)
			}
			break
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
