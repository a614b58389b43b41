package fsdpa

import (
	"fmt"
	"io"
	"os"
	"testing"
)

// A multi-MB trace fed in 4 KiB chunks: same report as the CLI, and every
// byte the context allocated through fsdpa_allocator is given back.
func TestBigTraceIn4KChunks(t *testing.T) {
	path := bigPath(t)
	ca := newCountingAllocator()
	defer ca.release()
	o := Options{Name: path}
	o.useAllocator(ca)
	a, err := NewWithOptions(o)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	feeds := 0
	var seen []uint64
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if ferr := a.Feed(buf[:n]); ferr != nil {
				t.Fatal(ferr)
			}
			feeds++
			if feeds%64 == 0 { // queries between feeds see the events so far
				st, _ := a.Stats()
				seen = append(seen, st.Kernels)
				if _, err := a.Timeline(Query{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Finish(); err != nil {
		t.Fatal(err)
	}
	st, _ := a.Stats()
	mine, err := a.Report(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	held := ca.liveBytes()
	a.Close()
	fmt.Printf("# %s: %d feeds, %d B in, %d B JSON, %d events, %d B held before Close, %d calls; after Close %d B in %d blocks\n",
		path, feeds, st.InputBytes, st.JSONBytes, st.Events, held, ca.calls(), ca.liveBytes(), ca.liveBlocks())
	fi, _ := os.Stat(path)
	if st.JSONBytes <= 4<<20 || st.InputBytes != uint64(fi.Size()) || held <= 0 {
		t.Fatalf("stats %+v held %d", st, held)
	}
	if ca.liveBytes() != 0 || ca.liveBlocks() != 0 {
		t.Fatalf("leak: %d bytes in %d blocks after Close", ca.liveBytes(), ca.liveBlocks())
	}
	mid := false
	for i, k := range seen {
		if i > 0 && k < seen[i-1] {
			t.Fatalf("kernel count went down: %v", seen)
		}
		mid = mid || (k > 0 && k < st.Kernels)
	}
	if !mid {
		t.Fatalf("no query between feeds saw a partial trace: %v / %d", seen, st.Kernels)
	}
	assertSame(t, mine, cliReport(t, path))
}
