package extractor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/memoryd/memoryd/internal/transcript"
)

// This file finds the sessions to read: which changed since a time, what
// project each is about, their watermarks, and the paths to watch.

// readSession reads the session's messages after its watermark. A session
// that is gone loses its watermark (not in a dry run) and gives an error
// matching both ErrNothingToDo and transcript.ErrSessionGone.
func (x *Extractor) readSession(ctx context.Context, source, id string, dry bool) (batch, error) {
	key := Key(source, id)
	marks, err := loadMarks(x.opts.StateDir)
	if err != nil {
		return batch{}, err
	}
	var b batch
	err = x.deps.Sources.Use(source, func(src transcript.Source) error {
		b, err = readNew(ctx, src, id, marks[key], x.opts.MaxMessages)
		return err
	})
	if errors.Is(err, transcript.ErrSessionGone) {
		if !dry {
			if err := x.drop(key); err != nil {
				return batch{}, err
			}
		}
		return batch{}, fmt.Errorf("%w: %w", ErrNothingToDo, err)
	}
	if err != nil {
		return batch{}, fmt.Errorf("read session %s: %w", key, err)
	}
	return b, nil
}

// project is the working directory of a session, from the listings seen so
// far or, failing that, a fresh transcript.Listing of its source.
func (x *Extractor) project(ctx context.Context, source, id string) string {
	key := Key(source, id)
	x.dirMu.Lock()
	dir, ok := x.dirs[key]
	x.dirMu.Unlock()
	if ok {
		return dir
	}
	x.deps.Sources.Use(source, func(src transcript.Source) error {
		list, err := src.Changed(ctx, time.Time{})
		for _, s := range list {
			if s.ID == id {
				dir = s.Dir
			}
		}
		return err
	})
	return dir
}

// Changed lists the sessions of every source updated at or after since (the
// zero time: all), oldest first within each source. It remembers each
// session's working directory for the prompt, and a full transcript.Listing (since
// zero) drops the watermarks of sessions their source no longer has. A
// failing source is named in the error; the other sources' sessions are
// returned with it.
func (x *Extractor) Changed(ctx context.Context, since time.Time) ([]transcript.Session, error) {
	return x.changed(ctx, since, true)
}

// changed is Changed, leaving out the sessions last active before
// Options.Since only with horizon set.
func (x *Extractor) changed(ctx context.Context, since time.Time, horizon bool) ([]transcript.Session, error) {
	l, err := x.deps.Sources.Changed(ctx, since)
	x.dirMu.Lock()
	for _, s := range l.Sessions {
		x.dirs[Key(s.Source, s.ID)] = s.Dir
	}
	x.dirMu.Unlock()
	if slices.Contains(slices.Collect(maps.Values(l.Complete)), true) {
		if perr := x.prune(l); perr != nil {
			err = errors.Join(err, perr)
		}
	}
	return x.inScope(l.Sessions, horizon), err
}

// prune drops the watermarks of sessions that a complete transcript.Listing of their
// source no longer shows (deleted sessions and files).
func (x *Extractor) prune(l transcript.Listing) error {
	listed := make(map[string]bool, len(l.Sessions))
	for _, s := range l.Sessions {
		listed[Key(s.Source, s.ID)] = true
	}
	return x.editMarks(func(m watermarks) {
		for key := range m {
			src, _, _ := cutKey(key)
			if l.Complete[src] && !listed[key] {
				delete(m, key)
			}
		}
	})
}

// cutKey splits a session key at the source name, which holds no slash.
func cutKey(key string) (source, id string, ok bool) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return key, "", false
}

// WatchPaths lists the folders in which transcript activity shows up.
func (x *Extractor) WatchPaths() []string { return x.deps.Sources.WatchPaths() }

// Watermark returns the stored watermark of a session and whether there is one.
func (x *Extractor) Watermark(source, id string) (transcript.Watermark, bool, error) {
	m, err := loadMarks(x.opts.StateDir)
	if err != nil {
		return transcript.Watermark{}, false, err
	}
	w, ok := m[Key(source, id)]
	return w, ok, nil
}
