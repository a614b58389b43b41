package fsdpa

import (
	"bytes"
	"reflect"
	"testing"
)

// The list protocol's promises (fsdpa.h, group lists), on a list the test
// holds: a snapshot that neither later feeds nor freeing its context
// change, read at the caller's struct size, O(1) items by index.
func TestListProtocol(t *testing.T) {
	if kind, count, st := nullListProbe(); kind != 0 || count != 0 || st != StatusInvalid {
		t.Fatalf("NULL list: kind %d count %d get %s", kind, count, st)
	}
	a, _ := New()
	if err := a.FeedFile(tinyPath()); err != nil {
		t.Fatal(err)
	}
	want := must(a.Steps())(t)
	h := must(a.holdStepList())(t)
	defer func() {
		if h.l != nil {
			h.free()
		}
	}()
	if h.kind() != listKindSteps || h.count() != len(want) || len(want) != 2 {
		t.Fatalf("step list: kind %d, %d items (want %d)", h.kind(), h.count(), len(want))
	}
	// an index past the end; a size below the struct's first released size
	// (the current fsdpa_step is its first release), size 0 included
	for _, c := range []struct {
		i    int
		size uintptr
	}{{2, stepStructSize}, {0, stepStructSize - 1}, {0, 8}, {0, 0}} {
		if st, _, _ := h.getSized(c.i, c.size, stepStructSize+16); st != StatusInvalid {
			t.Errorf("fsdpa_list_get(%d) with size %d: %s", c.i, c.size, st)
		}
	}
	// a caller struct larger than the library's: the known fields filled,
	// the bytes past them left as they were
	st, s, untouched := h.getSized(1, stepStructSize+16, stepStructSize+16)
	if st != StatusOK || s != want[1] || !untouched {
		t.Errorf("larger caller struct: %s %+v (want %+v), bytes past the struct untouched: %v", st, s, want[1], untouched)
	}
	// freeing the context leaves the list valid and unchanged
	a.Close()
	if got := must(h.steps())(t); !reflect.DeepEqual(got, want) {
		t.Errorf("after the context was freed: %+v, want %+v", got, want)
	}
	h.free()

	// later feeds do not change a list: one taken before the rest of the
	// trace keeps the steps it had
	data := tinyBytes(t)
	b, _ := New()
	defer b.Close()
	half := bytes.Index(data, []byte(`"traceEvents"`))
	if err := b.Feed(data[:half]); err != nil {
		t.Fatal(err)
	}
	early := must(b.holdStepList())(t)
	defer early.free()
	before := must(early.steps())(t)
	if err := b.Feed(data[half:]); err != nil {
		t.Fatal(err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if now := must(b.Steps())(t); !reflect.DeepEqual(now, want) || len(before) != 0 {
		t.Fatalf("steps %+v after the whole trace (want %+v); %d before its events", now, want, len(before))
	}
	if after := must(early.steps())(t); early.count() != len(before) || !reflect.DeepEqual(after, before) {
		t.Errorf("the early list changed with later feeds: %+v, was %+v", after, before)
	}
}
