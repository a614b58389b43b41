package fsdpa

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

const base = int64(1_000_000_000_000) // baseTimeNanoseconds of tiny_trace.json

func thisDir() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Dir(f)
}

func buildRoot() string {
	if b := os.Getenv("FSDPA_BUILD_ROOT"); b != "" {
		return b
	}
	return filepath.Join(thisDir(), "..", "..", "build")
}

func tinyPath() string { return filepath.Join(thisDir(), "..", "testdata", "tiny_trace.json") }

func samplePath() string {
	if p := os.Getenv("FSDPA_SAMPLE_TRACE"); p != "" {
		return p
	}
	return tinyPath()
}

// bigPath is the multi-MB trace, or "" with a printed reason.
func bigPath(t *testing.T) string {
	p := os.Getenv("FSDPA_BIG_TRACE")
	if p == "" {
		c := os.Getenv("FSDPA_TRACE_CORPUS")
		if c == "" {
			c = os.Getenv("FSDPA_DEFAULT_CORPUS")
		}
		if c != "" {
			p = filepath.Join(c, "hta", "trace_diff", "control", "control.json.gz")
		}
	}
	if _, err := os.Stat(p); p == "" || err != nil {
		fmt.Printf("# SKIP big-trace test: no multi-MB trace (%q)\n", p)
		t.Skip("no multi-MB trace")
	}
	return p
}

func abiJSON(t *testing.T) []byte {
	p := os.Getenv("FSDPA_ABI_JSON")
	if p == "" {
		p = filepath.Join(buildRoot(), "bindings", "abi.json")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("ABI table missing (%v): build it with ninja or set FSDPA_ABI_JSON", err)
	}
	return b
}

func cliReport(t *testing.T, paths ...string) string {
	cli := os.Getenv("FSDPA_CLI")
	if cli == "" {
		cli = filepath.Join(buildRoot(), "tools", "fsdpa", "fsdpa")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(cli, append([]string{"analyze", "--format", "json", "--no-progress"}, paths...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fsdpa analyze: %v: %s", err, stderr.String())
	}
	return string(out)
}

var pathRE = regexp.MustCompile(`("path": )"(?:[^"\\]|\\.)*"`)

func withoutPaths(s string) string { return pathRE.ReplaceAllString(s, `$1""`) }

func assertSame(t *testing.T, mine, cli string) {
	t.Helper()
	a, b := withoutPaths(mine), withoutPaths(cli)
	if a == b {
		return
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := i - 80
	if lo < 0 {
		lo = 0
	}
	hi := func(s string) int {
		if i+80 < len(s) {
			return i + 80
		}
		return len(s)
	}
	t.Fatalf("reports differ at byte %d:\nbinding: %q\nCLI:     %q", i, a[lo:hi(a)], b[lo:hi(b)])
}

func i64(v int64) *int64 { return &v }
