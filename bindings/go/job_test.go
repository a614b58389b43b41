package fsdpa

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The functions over the ranks of one job (cross-rank analysis, summaries,
// annotated traces) against the CLI on the same files: `fsdpa analyze`,
// `fsdpa summarize`, `fsdpa merge` and `fsdpa annotate`, and against the
// generator's ground truth for the straggler.

// stragglerJob generates a 3-rank job in which rank 1 is late by a known
// delay every step, and feeds one analyzer per rank (named by its path).
func stragglerJob(t *testing.T) ([]string, []*Analyzer) {
	paths := tracegen(t, "straggler3", "straggler", "--ranks", "3", "--steps", "4", "--layers", "3")
	if len(paths) != 3 {
		t.Fatalf("tracegen wrote %v", paths)
	}
	var as []*Analyzer
	for _, p := range paths {
		a, err := NewWithOptions(Options{Name: p})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
		if err := a.FeedFile(p); err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	return paths, as
}

// checkCrossRankAgainstCLI compares QueryCrossRank / QueryCrossRankRanks
// over the analyzers with the cross_rank section of the CLI's report on the
// same files.
func checkCrossRankAgainstCLI(t *testing.T, paths []string, as []*Analyzer) (CrossRank, []CrossRankRank) {
	rep := decodeJSON(t, runCLI(t, append([]string{"analyze", "--format", "json", "--no-progress"}, paths...)...)).(jobj)
	cr := must(QueryCrossRank(as))(t)
	ranks := must(QueryCrossRankRanks(as))(t)
	if len(ranks) != len(as) || cr.Ranks != uint64(len(as)) {
		t.Fatalf("%d ranks, crossrank says %d, %d rank rows", len(as), cr.Ranks, len(ranks))
	}
	if rep["cross_rank"] == nil { // fewer than 2 ranks, or nothing matched
		if cr.Collectives != 0 || cr.Unsynchronized != 0 || cr.TransferNs != nil || cr.StragglerRank != nil {
			t.Errorf("the report has no cross_rank section, the query %+v", cr)
		}
		return cr, ranks
	}
	n := 0
	c := cmp{t, "cross_rank", rep["cross_rank"].(jobj), &n}
	c.eq("ranks", cr.Ranks)
	c.eq("reference_rank", cr.ReferenceRank)
	c.eq("collectives", cr.Collectives)
	c.eq("unmatched", cr.Unmatched)
	c.eq("unaligned", cr.Unaligned)
	c.eq("unsynchronized", cr.Unsynchronized)
	c.eq("transfer_ns", cr.TransferNs)
	c.eq("wait_ns", cr.WaitNs)
	c.eq("end_spread_p50_ns", cr.EndSpreadP50Ns)
	c.eq("end_spread_max_ns", cr.EndSpreadMaxNs)
	c.sameLen("per_rank", len(ranks))
	for i, r := range ranks {
		rc := c.elem("per_rank", i)
		rc.eq("rank", r.Rank)
		rc.eq("clock_offset_ns", r.ClockOffsetNs)
		rc.eq("collectives", r.Collectives)
		rc.eq("transfer_ns", r.TransferNs)
		rc.eq("wait_ns", r.WaitNs)
		var share *float64
		if r.TransferNs != nil && r.WaitNs != nil && *r.TransferNs+*r.WaitNs > 0 {
			s := float64(*r.WaitNs) / float64(*r.TransferNs+*r.WaitNs)
			share = &s
		}
		rc.ratio("wait_share", share, 6)
		rc.eq("last_count", r.LastCount)
		rc.eq("late_steps", r.LateSteps)
		rc.eq("mean_delay_ns", r.MeanDelayNs)
		rc.eq("max_delay_ns", r.MaxDelayNs)
		rc.eq("lost_ns", r.LostNs)
	}
	if cr.StragglerRank == nil {
		c.eq("straggler", (*string)(nil))
	} else {
		sc := c.at("straggler")
		sc.eq("rank", cr.StragglerRank)
		sc.eq("late_steps", cr.StragglerLateSteps)
		sc.eq("steps", cr.Steps)
		sc.eq("mean_delay_ns", cr.StragglerMeanDelayNs)
		sc.eq("max_delay_ns", cr.StragglerMaxDelayNs)
		sc.eq("lost_ns", cr.StragglerLostNs)
	}
	fmt.Printf("# cross-rank of %d ranks: %d report values equal to the queries'\n", len(as), n)
	return cr, ranks
}

func TestCrossRankMatchesCLIAndTruth(t *testing.T) {
	paths, as := stragglerJob(t)
	cr, ranks := checkCrossRankAgainstCLI(t, paths, as)
	// the generator's truth: which rank is late, by how much, and each
	// rank's clock offset (aligned to the reference rank's)
	offsets := map[int64]int64{}
	for _, p := range paths {
		tr := loadTruth(t, p)
		r := mustAtoi(t, jtext(tr["rank"]))
		offsets[r] = mustAtoi(t, jtext(tr["clock_offset_ns"]))
		st := tr["straggler"].(jobj)
		want := mustAtoi(t, jtext(st["rank"]))
		delay := mustAtoi(t, jtext(st["delay_ns"]))
		if cr.StragglerRank == nil || *cr.StragglerRank != want || *cr.StragglerMaxDelayNs != delay ||
			*cr.StragglerMeanDelayNs != delay || cr.StragglerLateSteps != 4 {
			t.Errorf("straggler: query %+v, truth rank %d delay %d", cr, want, delay)
		}
	}
	if cr.ReferenceRank == nil {
		t.Fatal("no reference rank")
	}
	ref := *cr.ReferenceRank
	for _, r := range ranks {
		if r.ClockOffsetNs == nil || *r.ClockOffsetNs != offsets[r.Rank]-offsets[ref] {
			t.Errorf("rank %d: clock offset %s, truth %d - %d", r.Rank, gtext(r.ClockOffsetNs), offsets[r.Rank], offsets[ref])
		}
	}
	var lost int64
	for _, r := range ranks {
		lost += r.LostNs
	}
	if lost != *cr.StragglerLostNs || cr.Ranks != 3 {
		t.Errorf("Σ lost %d, straggler lost %d", lost, *cr.StragglerLostNs)
	}
	// a lone rank matches nothing
	one := must(QueryCrossRank(as[:1]))(t)
	if one.Ranks != 1 || one.Collectives != 0 || one.TransferNs != nil || one.StragglerRank != nil {
		t.Errorf("one rank: %+v", one)
	}
	if _, err := QueryCrossRank(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("no analyzers: %v", err)
	}
}

func TestSummariesMatchCLI(t *testing.T) {
	paths, as := stragglerJob(t)
	dir := t.TempDir()
	var sums, files []string
	for i, a := range as {
		s := must(a.Summary())(t)
		cli := string(runCLI(t, "summarize", paths[i]))
		if s != cli {
			t.Fatalf("rank %d: summary differs from `fsdpa summarize` (%d vs %d bytes)", i, len(s), len(cli))
		}
		f := filepath.Join(dir, fmt.Sprintf("r%d.fsum", i))
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		sums, files = append(sums, s), append(files, f)
	}
	merged := must(SummaryMerge(sums...))(t)
	if cli := string(runCLI(t, append([]string{"merge", "--summary"}, files...)...)); merged != cli {
		t.Fatalf("merged summary differs from `fsdpa merge --summary` (%d vs %d bytes)", len(merged), len(cli))
	}
	// merging is associative, byte for byte
	left := must(SummaryMerge(must(SummaryMerge(sums[0], sums[1]))(t), sums[2]))(t)
	right := must(SummaryMerge(sums[0], must(SummaryMerge(sums[1], sums[2]))(t)))(t)
	if left != merged || right != merged {
		t.Fatal("merge is not associative")
	}
	// the report of the merged summary is the report of the traces
	rep := must(SummaryReport(merged))(t)
	if cli := cliReport(t, paths...); rep.JSON != cli {
		assertSame(t, rep.JSON, cli)
		t.Fatal("same paths: the bytes should be identical")
	}
	if many := must(ReportMany(as, paths, FormatJSON))(t); many != rep.JSON {
		t.Fatal("ReportMany differs from the summary's report")
	}
	if len(rep.Ranks) != 3 || len(rep.CrossRank) < 10 {
		t.Fatalf("report of the merged summary: %d ranks, cross_rank %s", len(rep.Ranks), rep.CrossRank)
	}
	// text, page and tables are made from the JSON alone: the text of the
	// merged summaries' report is the text of the traces'
	text := must(ReportMany(as, paths, FormatText))(t)
	if r := must(Render(rep.JSON, FormatText, ""))(t); r != text {
		t.Fatal("Render(text) of the merged report differs from ReportMany(text)")
	}
	if csv := must(Render(rep.JSON, FormatCSV, "ranks"))(t); strings.Count(csv, "\n") != 4 ||
		!strings.HasPrefix(csv, "rank,iterations,") {
		t.Fatalf("ranks table: %q", csv)
	}
	if page := must(Render(rep.JSON, FormatHTML, ""))(t); !strings.Contains(page, `id="fsdpa-viz">null</script>`) {
		t.Fatal("the page made from JSON should have no picture data")
	}
	if _, err := Render(rep.JSON, FormatCSV, "kernels"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown table: %v", err)
	}
	// errors carry the library's message
	var e *Error
	if _, err := SummaryMerge("{not a summary"); !errors.As(err, &e) || !errors.Is(err, ErrParse) ||
		e.Message == "" || e.Message == StatusParse.String() || e.Input != 0 {
		t.Fatalf("bad summary: %#v", err)
	}
	if _, err := SummaryMerge(sums[0], sums[1], "{not a summary"); !errors.As(err, &e) || !errors.Is(err, ErrParse) ||
		e.Input != 2 {
		t.Fatalf("bad third summary: %#v", err)
	}
	if _, err := SummaryReport("[]"); !errors.Is(err, ErrParse) {
		t.Fatalf("bad summary report: %v", err)
	}
	if _, err := SummaryMerge(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("no summary: %v", err)
	}
	if _, err := (SummaryOptions{MaxMemoryBytes: 4096}).Merge(sums...); !errors.Is(err, ErrLimit) {
		t.Fatalf("memory cap: %v", err)
	}
	// everything the summary functions allocate goes back to the allocator
	ca := newCountingAllocator()
	defer ca.release()
	var o SummaryOptions
	o.useAllocator(ca)
	m2 := must(o.Merge(sums...))(t)
	r2 := must(o.Report(m2))(t)
	if m2 != merged || r2.JSON != rep.JSON || ca.calls() == 0 || ca.liveBytes() != 0 || ca.liveBlocks() != 0 {
		t.Fatalf("counting allocator: %d calls, %d bytes in %d blocks live afterwards",
			ca.calls(), ca.liveBytes(), ca.liveBlocks())
	}
	fmt.Printf("# summaries: %d ranks, %d B merged, %d allocator calls, 0 B left\n", len(sums), len(merged), ca.calls())
}

func readMaybeGzip(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isGzip(t *testing.T, path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b
}

func TestAnnotateMatchesCLI(t *testing.T) {
	paths, as := stragglerJob(t)
	dir := t.TempDir()
	cliDir := filepath.Join(dir, "cli")
	if err := os.Mkdir(cliDir, 0o755); err != nil {
		t.Fatal(err)
	}
	runCLI(t, append([]string{"annotate", "-d", cliDir}, paths...)...)
	rep := must(ReportMany(as, paths, FormatJSON))(t)
	parsed := must(ParseReport(rep))(t)
	for i, p := range paths {
		out := filepath.Join(dir, filepath.Base(p))
		if err := AnnotateFile(as, i, p, out, AnnotateOptions{}); err != nil {
			t.Fatal(err)
		}
		if !isGzip(t, out) {
			t.Errorf("%s: a .gz name gives gzip by default", out)
		}
		// the same document as the CLI's copy
		mine, cli := readMaybeGzip(t, out), readMaybeGzip(t, filepath.Join(cliDir, filepath.Base(p)))
		if !bytes.Equal(mine, cli) {
			t.Fatalf("rank %d: annotated copy differs from `fsdpa annotate` (%d vs %d bytes)", i, len(mine), len(cli))
		}
		// the added events: what AnnotateEvents lists, one slice per range of
		// each of this rank's findings, and nothing the analysis reads
		var events []struct {
			Ph   string          `json:"ph"`
			Cat  string          `json:"cat"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		}
		raw := must(AnnotateEvents(as, i))(t)
		if err := json.Unmarshal(raw, &events); err != nil {
			t.Fatal(err)
		}
		inner := bytes.TrimSpace(raw)
		inner = bytes.TrimSpace(inner[1 : len(inner)-1]) // the array's elements, as the copy holds them
		if len(events) == 0 || !bytes.Contains(mine, inner) {
			t.Errorf("rank %d: the annotated copy does not hold the events AnnotateEvents lists", i)
		}
		rank := must(as[i].TraceInfo())(t).Rank
		slices := map[string]int{}
		for _, e := range events {
			if e.Cat == "fsdpa" {
				slices[e.Name]++
			}
		}
		for _, f := range parsed.Findings {
			if rank == nil || f.Rank != *rank {
				continue
			}
			rs := must(f.Ranges())(t)
			want := len(rs)
			if want == 0 {
				want = 1 // one instant event
			}
			if slices[f.Title] < want {
				t.Errorf("rank %d finding %s: %d events, %d ranges", i, f.ID, slices[f.Title], len(rs))
			}
		}
		b, _ := NewWithOptions(Options{Name: p})
		if err := b.FeedFile(out); err != nil {
			t.Fatal(err)
		}
		copyRep := must(b.Result())(t)
		b.Close()
		orig := parsed.Inputs[i]
		if copyRep.Inputs[0].Events != orig.Events+int64(len(events)) {
			t.Errorf("rank %d: copy has %d events, original %d + %d added", i, copyRep.Inputs[0].Events,
				orig.Events, len(events))
		}
		var x, y map[string]interface{}
		json.Unmarshal([]byte(copyRep.JSON), &x)
		json.Unmarshal([]byte(must(as[i].Report(FormatJSON))(t)), &y)
		delete(x, "inputs")
		delete(y, "inputs")
		if fmt.Sprint(x) != fmt.Sprint(y) {
			t.Errorf("rank %d: the annotated copy analyses differently", i)
		}
	}
	// gzip on request, whatever the name
	no, yes := false, true
	plain := filepath.Join(dir, "plain.json.gz")
	if err := AnnotateFile(as, 0, paths[0], plain, AnnotateOptions{Gzip: &no}); err != nil || isGzip(t, plain) {
		t.Fatalf("Gzip false: %v", err)
	}
	zipped := filepath.Join(dir, "zipped.json")
	if err := AnnotateFile(as, 0, paths[0], zipped, AnnotateOptions{Gzip: &yes, Level: 1}); err != nil || !isGzip(t, zipped) {
		t.Fatalf("Gzip true: %v", err)
	}
	if !bytes.Equal(readMaybeGzip(t, plain), readMaybeGzip(t, zipped)) {
		t.Fatal("plain and gzip copies differ")
	}
	// errors: not the trace the analyzer read, a missing file, a bad index
	bad := filepath.Join(dir, "bad.json")
	if err := AnnotateFile(as, 0, paths[1], bad, AnnotateOptions{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("another rank's trace: %v", err)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a failed annotation left its output")
	}
	if err := AnnotateFile(as, 0, filepath.Join(dir, "missing.json"), bad, AnnotateOptions{}); !errors.Is(err, ErrIO) {
		t.Errorf("missing input: %v", err)
	}
	if err := AnnotateFile(as, 3, paths[0], bad, AnnotateOptions{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("index 3 of 3: %v", err)
	}
	if _, err := AnnotateEvents(as, -1); !errors.Is(err, ErrInvalid) {
		t.Errorf("index -1: %v", err)
	}
}
