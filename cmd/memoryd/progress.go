package main

import (
	"fmt"
	"io"
	"os"
)

// progress shows long work step by step: on a terminal one line that
// updates in place, elsewhere a plain line per step.
type progress struct {
	w      io.Writer
	tty    bool
	shown  bool // an updating line is on screen
	prefix string
}

func newProgress(w io.Writer, prefix string) *progress {
	p := &progress{w: w, prefix: prefix}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// step shows the current step.
func (p *progress) step(format string, args ...any) {
	line := p.prefix + fmt.Sprintf(format, args...)
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K"+line)
		p.shown = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// clear ends the updating line before other output.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
