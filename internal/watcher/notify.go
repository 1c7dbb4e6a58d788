package watcher

import "github.com/fsnotify/fsnotify"

// fsWatcher is the part of *fsnotify.Watcher the loop uses, so that tests
// can drive the loop with synthetic events and errors.
type fsWatcher interface {
	Add(name string) error
	Remove(name string) error
	Close() error
	events() <-chan fsnotify.Event
	errors() <-chan error
}

// notifyWatcher adapts *fsnotify.Watcher (whose channels are fields) to
// fsWatcher. A goroutine moves fsnotify's errors into a buffered channel at
// once, because fsnotify sends some errors while holding the lock that Add
// and Remove take (inotify: the IN_MOVE_SELF of a directory deleted right
// after it moved); a loop busy in Add could then never receive the error, and
// both would wait forever. When the buffer is full further errors are
// dropped: any one queued error already makes the loop drop every watch,
// set them up again and send a Rescan.
type notifyWatcher struct {
	w    *fsnotify.Watcher
	errs chan error
	done chan struct{} // closed when forwardErrors has returned
}

func newNotifyWatcher() (fsWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	n := &notifyWatcher{w: w, errs: make(chan error, 8), done: make(chan struct{})}
	go n.forwardErrors()
	return n, nil
}

func (n *notifyWatcher) forwardErrors() {
	defer close(n.done)
	for err := range n.w.Errors { // closed once fsnotify's reader has stopped
		select {
		case n.errs <- err:
		default:
		}
	}
}

// Close closes the fsnotify watcher and waits for both its goroutine and
// forwardErrors to end.
func (n *notifyWatcher) Close() error {
	err := n.w.Close()
	<-n.done
	return err
}

func (n *notifyWatcher) Add(name string) error         { return n.w.Add(name) }
func (n *notifyWatcher) Remove(name string) error      { return n.w.Remove(name) }
func (n *notifyWatcher) events() <-chan fsnotify.Event { return n.w.Events }
func (n *notifyWatcher) errors() <-chan error          { return n.errs }
