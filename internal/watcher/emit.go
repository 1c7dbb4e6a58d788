package watcher

// emitter delivers events to the consumer without ever blocking the loop
// that reads fsnotify: a loop that blocks stops reading, the kernel queue
// fills and overflows, and then everything is lost at once.
//
// When the buffered channel is full, the event is not dropped silently: the
// emitter owes the consumer a Rescan instead, which covers every change made
// up to the moment it is delivered. While a Rescan is owed, path events are
// redundant and are discarded. The Run loop offers the owed Rescan in its
// select (see owed), so it goes out as soon as there is room.
//
// Only used from the Run goroutine, so no mutex is needed.
type emitter struct {
	ch      chan Event
	pending bool // a Rescan is owed to the consumer
}

// path reports a change to one path.
func (e *emitter) path(rel string) {
	e.flush()
	if e.pending {
		return // the owed Rescan will cover this change
	}
	select {
	case e.ch <- Event{Path: rel}:
	default:
		e.pending = true
	}
}

// rescan asks the consumer to re-read everything.
func (e *emitter) rescan() {
	e.pending = true
	e.flush()
}

// flush sends the owed Rescan if there is room.
func (e *emitter) flush() {
	if !e.pending {
		return
	}
	select {
	case e.ch <- Event{Rescan: true}:
		e.pending = false
	default:
	}
}

// owed returns the channel to send the owed Rescan on, or nil (which blocks
// forever in a select) when nothing is owed. After a successful send the
// caller must call sent.
func (e *emitter) owed() chan<- Event {
	if e.pending {
		return e.ch
	}
	return nil
}

// sent records that the owed Rescan was delivered.
func (e *emitter) sent() { e.pending = false }
