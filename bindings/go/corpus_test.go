package fsdpa

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The query-versus-report comparison on the real PyTorch-profiler traces of
// the shared corpus (../shared/traces, FSDPA_TRACE_CORPUS): CUDA and ROCm,
// single- and multi-GPU, with and without steps, memory events, cuda_sync
// events.  Not part of the repository: without it the test prints `# SKIP`.

const corpusMaxBytes = 3 << 20 // the small ones: the whole set takes a few seconds

func corpusDir(t *testing.T) string {
	c := os.Getenv("FSDPA_TRACE_CORPUS")
	if c == "" {
		c = os.Getenv("FSDPA_DEFAULT_CORPUS")
	}
	if c == "" {
		c = filepath.Join(srcRoot(), "..", "shared", "traces")
	}
	if _, err := os.Stat(filepath.Join(c, "MANIFEST.tsv")); err != nil {
		fmt.Printf("# SKIP corpus test: no trace corpus (%q)\n", c)
		t.Skip("no trace corpus")
	}
	return c
}

// corpusTraces lists the corpus's trace files up to corpusMaxBytes, in
// path order.
func corpusTraces(t *testing.T, dir string) []string {
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		name := fi.Name()
		if fi.IsDir() || fi.Size() > corpusMaxBytes || !(strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".json.gz")) {
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no trace of at most %d bytes under %s", corpusMaxBytes, dir)
	}
	return out
}

func TestCorpusQueriesMatchCLIReport(t *testing.T) {
	dir := corpusDir(t)
	for _, p := range corpusTraces(t, dir) {
		p := p
		t.Run(strings.TrimPrefix(p, dir+string(filepath.Separator)), func(t *testing.T) {
			// an input the CLI cannot read (e.g. an execution trace) is
			// refused by the binding with the same status class
			var stderr bytes.Buffer
			cmd := exec.Command(cliPath(), "analyze", "--format", "json", "--no-progress", p)
			cmd.Stderr = &stderr
			if _, err := cmd.Output(); err != nil {
				a, _ := New()
				defer a.Close()
				ferr := a.FeedFile(p)
				var e *Error
				if !errors.As(ferr, &e) || !(errors.Is(ferr, ErrNotATrace) || errors.Is(ferr, ErrParse) ||
					errors.Is(ferr, ErrTruncated)) {
					t.Fatalf("the CLI refuses it (%v: %s), the binding says %v", err, stderr.String(), ferr)
				}
				fmt.Printf("# %s: refused by both (%s)\n", filepath.Base(p), e.Status)
				return
			}
			checkTraceAgainstCLI(t, p)
		})
	}
}

// Two ranks of a real job (HTA's sampled 128-rank recommender trainer):
// the cross-rank queries against the report's cross_rank section.
func TestCorpusCrossRank(t *testing.T) {
	dir := corpusDir(t)
	var paths []string
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		first := strings.SplitN(sc.Text(), "\t", 2)[0]
		if strings.HasPrefix(first, "#") || !strings.Contains(first, "{0,1}") {
			continue
		}
		// a family of two ranks: a{0,1}b
		i, j := strings.Index(first, "{"), strings.Index(first, "}")
		for _, r := range []string{"0", "1"} {
			paths = append(paths, filepath.Join(dir, first[:i]+r+first[j+1:]))
		}
		break
	}
	if len(paths) != 2 {
		t.Fatal("MANIFEST.tsv lists no two-rank family (path{0,1}...)")
	}
	var as []*Analyzer
	for _, p := range paths {
		a, err := NewWithOptions(Options{Name: p})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if err := a.FeedFile(p); err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	checkCrossRankAgainstCLI(t, paths, as)
	// and the summaries of the two ranks merge into the same report
	var sums []string
	for _, a := range as {
		sums = append(sums, must(a.Summary())(t))
	}
	rep := must(SummaryReport(must(SummaryMerge(sums...))(t)))(t)
	if cli := cliReport(t, paths...); rep.JSON != cli {
		assertSame(t, rep.JSON, cli)
	}
}
