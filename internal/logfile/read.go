package logfile

import (
	"context"
	"errors"
	"io"
	"os"
	"time"
)

// ShowOptions says what Show prints.
type ShowOptions struct {
	Lines  int           // the last Lines lines; 0 prints none (with Follow: only what comes)
	Follow bool          // then keep printing what is appended until the context ends
	Poll   time.Duration // how often a followed file is looked at (250 ms when zero)
}

// Show writes the last lines of the log at path to w, taking the older ones
// from the rotated file when path alone has fewer, and with Follow keeps
// writing what is appended, following the file when it is rotated or
// truncated, until ctx ends (which is not an error). The file need not be
// written by File: any log that only grows, or is rotated by renaming or
// truncated, can be followed. A missing path is an error wrapping
// os.ErrNotExist unless the rotated file exists.
func Show(ctx context.Context, w io.Writer, path string, o ShowOptions) error {
	fl := follower{path: path}
	defer fl.close()
	f, err := os.Open(path)
	switch {
	case err == nil:
		fl.f = f
		if fl.off, err = writeTail(w, f, path, o.Lines); err != nil {
			return err
		}
	case !errors.Is(err, os.ErrNotExist):
		return err
	default:
		// Rotated a moment ago and not written to since, or never written.
		if _, rerr := os.Stat(Rotated(path)); rerr != nil {
			return err
		}
		if err := writeRotatedTail(w, path, o.Lines); err != nil {
			return err
		}
	}
	if !o.Follow {
		return nil
	}
	poll := o.Poll
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if err := fl.step(w); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// writeTail writes the last n lines of f, continuing into the rotated file
// when f holds fewer, and returns the offset in f it read up to.
func writeTail(w io.Writer, f *os.File, path string, n int) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	start, got, err := tailStart(f, size, n)
	if err != nil {
		return 0, err
	}
	if got < n {
		if err := writeRotatedTail(w, path, n-got); err != nil {
			return 0, err
		}
	}
	if _, err := io.Copy(w, io.NewSectionReader(f, start, size-start)); err != nil {
		return 0, err
	}
	return size, nil
}

// writeRotatedTail writes the last n lines of path's rotated file, if any.
func writeRotatedTail(w io.Writer, path string, n int) error {
	if n <= 0 {
		return nil
	}
	old, err := os.Open(Rotated(path))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer old.Close()
	fi, err := old.Stat()
	if err != nil {
		return err
	}
	start, _, err := tailStart(old, fi.Size(), n)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, io.NewSectionReader(old, start, fi.Size()-start))
	return err
}

// tailChunk is how much tailStart reads at a time, from the end backwards.
const tailChunk = 32 << 10

// tailStart finds where the last n lines of the first size bytes of r begin,
// and how many lines there are from there (fewer than n when r has fewer).
// A last line without its newline (being written) counts as a line.
func tailStart(r io.ReaderAt, size int64, n int) (start int64, lines int, err error) {
	if n <= 0 || size == 0 {
		return size, 0, nil
	}
	buf := make([]byte, tailChunk)
	newlines := 0
	end := size - 1 // the last byte: a newline there ends the last line, it does not start one
	for end > 0 {
		from := max(0, end-int64(len(buf)))
		chunk := buf[:end-from]
		if _, err := r.ReadAt(chunk, from); err != nil && !errors.Is(err, io.EOF) {
			return 0, 0, err
		}
		for i := len(chunk) - 1; i >= 0; i-- {
			if chunk[i] != '\n' {
				continue
			}
			if newlines++; newlines == n {
				return from + int64(i) + 1, n, nil
			}
		}
		end = from
	}
	return 0, newlines + 1, nil
}

// follower copies what is appended to a log file, reopening path when the
// file it reads was renamed away and starting over when it was truncated.
type follower struct {
	path string
	f    *os.File // nil until path exists
	off  int64
}

// step copies what is new, then checks for a rotation or truncation.
func (fl *follower) step(w io.Writer) error {
	if fl.f != nil {
		if err := fl.drain(w); err != nil {
			return err
		}
	}
	fi, err := os.Stat(fl.path)
	if err != nil {
		return nil // between a rename and the new file, or removed: look again later
	}
	switch {
	case fl.f == nil:
	case !sameFile(fl.f, fi):
		// Rotated: finish the old file (a writer may have added to it since
		// the drain above), then read the new one from its start.
		if err := fl.drain(w); err != nil {
			return err
		}
		fl.f.Close()
		fl.f = nil
	case fi.Size() < fl.off:
		fl.off = 0 // truncated in place
		return fl.drain(w)
	default:
		return nil
	}
	f, err := os.Open(fl.path)
	if err != nil {
		return nil
	}
	fl.f, fl.off = f, 0
	return fl.drain(w)
}

// drain copies from the read offset to the current end of the file.
func (fl *follower) drain(w io.Writer) error {
	n, err := io.Copy(w, io.NewSectionReader(fl.f, fl.off, 1<<62))
	fl.off += n
	return err
}

func sameFile(f *os.File, fi os.FileInfo) bool {
	cur, err := f.Stat()
	return err == nil && os.SameFile(cur, fi)
}

func (fl *follower) close() {
	if fl.f != nil {
		fl.f.Close()
	}
}
