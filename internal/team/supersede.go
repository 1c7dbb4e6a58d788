package team

import (
	"context"
	"errors"
	"fmt"

	"github.com/memoryd/memoryd/internal/facts"
)

// ProposeSupersessions proposes superseding each of the person's facts
// (in memoryDir) that says what a team fact of f says (Overlaps): one
// review item each, written by the writer open gives, asked for only when
// there is one (facts.Writer.ProposeSupersede; never a change to the
// person's fact itself). notes are one line per proposal made or that
// failed, for the person; an overlap whose proposal was not written is
// compared again next time (CompareAgain). err is a comparison or a writer
// that failed.
func (f Folder) ProposeSupersessions(ctx context.Context, stateDir, memoryDir string, open func() (*facts.Writer, error)) (notes []string, err error) {
	ovs, err := f.Overlaps(ctx, stateDir, memoryDir)
	if len(ovs) == 0 {
		return nil, err
	}
	var again []string // compared next time: their proposal was not written
	defer func() {
		if len(again) > 0 {
			f.CompareAgain(stateDir, again) // failing, the overlap waits for the team fact's next change
		}
	}()
	w, err := open()
	if err != nil {
		for _, o := range ovs {
			again = append(again, o.Team)
		}
		return nil, fmt.Errorf("your facts that the team's repeat cannot be proposed for review: %w", err)
	}
	for _, o := range ovs {
		_, err := w.ProposeSupersede(ctx, o.Personal, o.Team)
		switch {
		case err == nil:
			notes = append(notes, fmt.Sprintf("your %s says what the team's %s says: superseding it waits for your review (memoryd review)", o.Personal, o.Team))
		case !errors.Is(err, facts.ErrExists) && !errors.Is(err, facts.ErrSuperseded) && !errors.Is(err, facts.ErrReadonly):
			notes = append(notes, fmt.Sprintf("propose superseding %s: %v", o.Personal, err))
			again = append(again, o.Team)
		}
	}
	return notes, nil
}
