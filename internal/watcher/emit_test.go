package watcher

import (
	"fmt"
	"testing"
)

func drain(ch chan Event) []Event {
	var got []Event
	for {
		select {
		case ev := <-ch:
			got = append(got, ev)
		default:
			return got
		}
	}
}

func TestEmitterDeliversInOrder(t *testing.T) {
	e := emitter{ch: make(chan Event, 4)}
	e.rescan()
	e.path("a.md")
	e.path("b.md")
	got := drain(e.ch)
	want := []Event{{Rescan: true}, {Path: "a.md"}, {Path: "b.md"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if e.owed() != nil {
		t.Fatal("nothing should be owed")
	}
}

func TestEmitterFullBufferCollapsesIntoRescan(t *testing.T) {
	e := emitter{ch: make(chan Event, 2)}
	e.path("a.md")
	e.path("b.md")
	e.path("c.md") // no room: owed Rescan
	e.path("d.md") // covered by the owed Rescan
	if e.owed() == nil {
		t.Fatal("a Rescan should be owed when the buffer overflowed")
	}
	if got := drain(e.ch); fmt.Sprint(got) != fmt.Sprint([]Event{{Path: "a.md"}, {Path: "b.md"}}) {
		t.Fatalf("buffered: %v", got)
	}
	// With room again, the next event first delivers the owed Rescan.
	e.path("e.md")
	got := drain(e.ch)
	want := []Event{{Rescan: true}, {Path: "e.md"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if e.owed() != nil {
		t.Fatal("Rescan delivered, nothing should be owed")
	}
}

func TestEmitterOwedRescanViaSelect(t *testing.T) {
	e := emitter{ch: make(chan Event, 1)}
	e.path("a.md")
	e.rescan() // full: owed
	<-e.ch
	select {
	case e.owed() <- Event{Rescan: true}:
		e.sent()
	default:
		t.Fatal("owed channel not ready with room in the buffer")
	}
	if ev := <-e.ch; !ev.Rescan {
		t.Fatalf("got %v, want Rescan", ev)
	}
	if e.owed() != nil {
		t.Fatal("still owed after sent")
	}
}
