package fsdpa

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

type abiTable struct {
	HeaderVersion string `json:"header_version"`
	Structs       map[string]struct {
		Size         uintptr `json:"size"`
		Align        uintptr `json:"align"`
		Experimental bool    `json:"experimental"`
		Fields       []struct {
			Name   string  `json:"name"`
			Offset uintptr `json:"offset"`
			Size   uintptr `json:"size"`
		} `json:"fields"`
	} `json:"structs"`
	Enums map[string]struct {
		Size   int              `json:"size"`
		Values map[string]int64 `json:"values"`
	} `json:"enums"`
	Constants    map[string]int64 `json:"constants"`
	Initializers map[string]struct {
		Struct string                     `json:"struct"`
		Values map[string]json.RawMessage `json:"values"`
	} `json:"initializers"`
	Functions map[string]struct {
		Ret          string   `json:"ret"`
		Params       []string `json:"params"`
		Experimental bool     `json:"experimental"`
	} `json:"functions"`
	// the header's static inline wrappers: compiled into the caller, not
	// symbols of the library
	Inline map[string]struct {
		Ret          string   `json:"ret"`
		Params       []string `json:"params"`
		Calls        string   `json:"calls"`
		Sizeof       string   `json:"sizeof"`
		Experimental bool     `json:"experimental"`
	} `json:"inline"`
}

func loadABI(t *testing.T) abiTable {
	var a abiTable
	if err := json.Unmarshal(abiJSON(t), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// cgo's layout of every C struct this package uses equals the header's,
// and the package uses every struct of the header (experimental ones too:
// annotate.go defines FSDPA_EXPERIMENTAL).
func TestABIStructs(t *testing.T) {
	abi := loadABI(t)
	for name, typ := range cStructs() {
		c, ok := abi.Structs[name]
		if !ok {
			t.Errorf("%s is not in fsdpa.h any more", name)
			continue
		}
		if typ.Size() != c.Size || uintptr(typ.Align()) != c.Align {
			t.Errorf("%s: Go sees size %d align %d, header %d/%d", name, typ.Size(), typ.Align(), c.Size, c.Align)
		}
		var mine, theirs []string
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if f.Name == "_" { // cgo's explicit padding
				continue
			}
			mine = append(mine, fmt.Sprintf("%s@%d+%d", strings.TrimPrefix(f.Name, "_"), f.Offset, f.Type.Size()))
		}
		for _, f := range c.Fields {
			theirs = append(theirs, fmt.Sprintf("%s@%d+%d", f.Name, f.Offset, f.Size))
		}
		if strings.Join(mine, " ") != strings.Join(theirs, " ") {
			t.Errorf("%s fields:\n  cgo:    %v\n  header: %v", name, mine, theirs)
		}
	}
	var missing []string
	for name, st := range abi.Structs {
		// experimental structs are checked when the binding has them; a new
		// one need not be bound before it is stable
		if _, ok := cStructs()[name]; !ok && !st.Experimental {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("header structs the Go binding does not check: %v (add them to cStructs)", missing)
	} else {
		fmt.Printf("# all %d structs of fsdpa.h have cgo's layout of them checked\n", len(abi.Structs))
	}
}

// The Go constants equal the header's enum values.
func TestABIEnums(t *testing.T) {
	abi := loadABI(t)
	want := map[string]map[string]int64{
		"fsdpa_status": {"FSDPA_OK": int64(StatusOK), "FSDPA_ENOMEM": int64(StatusOutOfMemory),
			"FSDPA_EINVAL": int64(StatusInvalid), "FSDPA_EPARSE": int64(StatusParse),
			"FSDPA_ENOTTRACE": int64(StatusNotATrace), "FSDPA_ETRUNCATED": int64(StatusTruncated),
			"FSDPA_ELIMIT": int64(StatusLimit), "FSDPA_ESTATE": int64(StatusState),
			"FSDPA_EBUFS": int64(StatusBufferTooSmall), "FSDPA_EIO": int64(StatusIO)},
		"fsdpa_stream_role": {"FSDPA_ROLE_COMPUTE": int64(RoleCompute),
			"FSDPA_ROLE_COMMUNICATION": int64(RoleCommunication), "FSDPA_ROLE_MEMORY": int64(RoleMemory),
			"FSDPA_ROLE_MIXED": int64(RoleMixed)},
		"fsdpa_format": {"FSDPA_FORMAT_JSON": int64(FormatJSON), "FSDPA_FORMAT_TEXT": int64(FormatText),
			"FSDPA_FORMAT_HTML": int64(FormatHTML), "FSDPA_FORMAT_CSV": int64(FormatCSV)},
		"fsdpa_comm_split_by": {"FSDPA_SPLIT_COLLECTIVE": int64(SplitCollective),
			"FSDPA_SPLIT_PROCESS_GROUP": int64(SplitProcessGroup)},
		"fsdpa_fsdp_phase": {"FSDPA_PHASE_FORWARD": int64(PhaseForward), "FSDPA_PHASE_BACKWARD": int64(PhaseBackward)},
		"fsdpa_backward_pattern": {"FSDPA_BWD_UNKNOWN": int64(BackwardUnknown), "FSDPA_BWD_ZIGZAG": int64(BackwardZigzag),
			"FSDPA_BWD_NO_PREFETCH": int64(BackwardNoPrefetch), "FSDPA_BWD_SERIALIZED": int64(BackwardSerialized)},
		"fsdpa_wait_source": {"FSDPA_WAIT_UNKNOWN": int64(WaitUnknown), "FSDPA_WAIT_CUDA_SYNC": int64(WaitCudaSync),
			"FSDPA_WAIT_OWN_OP": int64(WaitOwnOp), "FSDPA_WAIT_INFERRED": int64(WaitInferred)},
		"fsdpa_query_field": {"FSDPA_QUERY_T0": int64(QueryT0), "FSDPA_QUERY_T1": int64(QueryT1),
			"FSDPA_QUERY_STEP": int64(QueryStep), "FSDPA_QUERY_DEVICE": int64(QueryDevice),
			"FSDPA_QUERY_STREAM": int64(QueryStream)},
		"fsdpa_severity": {"FSDPA_SEVERITY_INFO": int64(SeverityInfo.Level()),
			"FSDPA_SEVERITY_WARNING":  int64(SeverityWarning.Level()),
			"FSDPA_SEVERITY_CRITICAL": int64(SeverityCritical.Level())},
	}
	for enum, vals := range want {
		c, ok := abi.Enums[enum]
		if !ok {
			t.Errorf("enum %s is not in fsdpa.h any more", enum)
			continue
		}
		for k, v := range vals {
			if got, ok := c.Values[k]; !ok || got != v {
				t.Errorf("%s: Go has %d, header %d (present %v)", k, v, got, ok)
			}
		}
		for k := range c.Values {
			if _, ok := vals[k]; !ok {
				t.Errorf("%s: the header has %s, the Go binding does not", enum, k)
			}
		}
	}
	// the severity names are the library's (fsdpa_severity_name)
	for _, s := range []Severity{SeverityInfo, SeverityWarning, SeverityCritical} {
		if got := severityName(s.Level()); got != s {
			t.Errorf("fsdpa_severity_name(%d) = %q, the binding says %q", s.Level(), got, s)
		}
	}
	if got := severityName(7); got != "" || Severity("bogus").Level() != -1 {
		t.Errorf("unknown severity: name %q", got)
	}
	for name, v := range map[string]int64{"FSDPA_ABSENT": absent, "FSDPA_GAP_EDGES": GapEdges, "FSDPA_GAP_BINS": GapBins} {
		if got, ok := abi.Constants[name]; !ok || got != v {
			t.Errorf("%s: Go has %d, header %d (present %v)", name, v, got, ok)
		}
	}
	var missing []string
	for enum := range abi.Enums {
		if _, ok := want[enum]; !ok {
			missing = append(missing, enum)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		fmt.Printf("# note: header enums the Go binding does not mirror: %v\n", missing)
	}
	if hex, ok := abi.Constants["FSDPA_VERSION_HEX"]; !ok || int64(VersionNumber()) != hex {
		t.Errorf("loaded library version number %#x, header FSDPA_VERSION_HEX %#x", VersionNumber(), hex)
	}
	if abi.HeaderVersion != Version() {
		t.Errorf("loaded library %s, header in this tree %s", Version(), abi.HeaderVersion)
	}
}

// initProbeFile calls every *_init_sized itself (init_probe.go): it does
// not count as the package calling them.
const initProbeFile = "init_probe.go"

// Every exported function of the header is called by the package (cgo
// type-checks each call against the header it compiles); one the package
// does not call fails.  The package calls the header's static inline
// wrappers (the *_init helpers) as C code does: a call of one is a call of
// the exported function it calls, with cgo's sizeof of the struct.  A call
// to anything else the header in this tree does not declare fails
// (conversions to its enum and struct types are not calls).
func TestABIFunctions(t *testing.T) {
	abi := loadABI(t)
	files, err := filepath.Glob(filepath.Join(thisDir(), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	callRE := regexp.MustCompile(`\bC\.(fsdpa_[a-z0-9_]+)\(`)
	used := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || filepath.Base(f) == initProbeFile {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range callRE.FindAllStringSubmatch(string(src), -1) {
			used[m[1]] = true
		}
	}
	for name := range used {
		if w, ok := abi.Inline[name]; ok {
			used[w.Calls] = true
		}
	}
	var missing []string
	for name, fn := range abi.Functions {
		if !used[name] && !fn.Experimental {
			missing = append(missing, name)
		}
	}
	for name := range used {
		_, fn := abi.Functions[name]
		_, inline := abi.Inline[name]
		_, enum := abi.Enums[name] // conversions such as C.fsdpa_status(s)
		_, st := abi.Structs[name]
		if !fn && !inline && !enum && !st {
			t.Errorf("the package calls %s, which fsdpa.h does not declare", name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("header functions the Go binding does not call: %v", missing)
	} else {
		fmt.Printf("# all %d functions of fsdpa.h are called by the Go binding\n", len(abi.Functions))
	}
}

// The header's static inline wrappers are in the table apart from the
// exported functions, each calls an exported function, and none is a symbol
// of the library the test binary links (the functions they call are).
func TestABIInlineWrappers(t *testing.T) {
	abi := loadABI(t)
	if len(abi.Inline) == 0 {
		t.Fatal("the ABI table lists no inline wrappers (the *_init helpers)")
	}
	for name, w := range abi.Inline {
		if _, ok := abi.Functions[name]; ok {
			t.Errorf("%s is in the table both as inline and as exported", name)
		}
		if _, ok := abi.Functions[w.Calls]; !ok {
			t.Errorf("%s calls %s, which is not an exported function of the table", name, w.Calls)
		}
		if hasSymbol(name) {
			t.Errorf("libfsdpa exports %s, which the header defines static inline", name)
		}
		if !hasSymbol(w.Calls) {
			t.Errorf("libfsdpa does not export %s (called by the inline %s)", w.Calls, name)
		}
		if strings.HasSuffix(name, "_init") {
			st := strings.TrimSuffix(name, "_init")
			if w.Calls != st+"_init_sized" || w.Sizeof != st || len(w.Params) != 1 || w.Params[0] != st+" *" {
				t.Errorf("%s: %+v, want %s_init_sized(p, sizeof *p) of a %s *", name, w, st, st)
			}
		}
	}
}

// Every *_init the package calls passes the size of its own struct: the
// header's inline wrapper, compiled by cgo, fills exactly cgo's size of the
// struct (the size field says so) and leaves the bytes past it alone; and
// fsdpa_<x>_init_sized at every field boundary below the library's size
// (what a caller built against an older, smaller struct passes) writes the
// defaults of the fields before it, that size, and nothing past it.
func TestABIInitSizes(t *testing.T) {
	abi := loadABI(t)
	const spare = 64
	sizeField := func(b []byte) int {
		var v uint64
		for i := 0; i < 8; i++ {
			v |= uint64(b[i]) << (8 * i) // little-endian, as amd64 and arm64
		}
		return int(v)
	}
	untouched := func(b []byte) bool {
		for _, x := range b {
			if x != 0xAA {
				return false
			}
		}
		return true
	}
	n := 0
	for name, w := range abi.Inline {
		if !strings.HasSuffix(name, "_init") || w.Sizeof == "" {
			continue
		}
		n++
		typ := cStructs()[w.Sizeof]
		full, ok := initProbe(w.Sizeof, -1, spare)
		if typ == nil || !ok {
			t.Errorf("no init probe for %s (add it to init_probe.go)", w.Sizeof)
			continue
		}
		size := int(typ.Size())
		if got := sizeField(full); got != size {
			t.Errorf("%s(): size field %d, cgo's sizeof %d", name, got, size)
		}
		if !untouched(full[size:]) {
			t.Errorf("%s() wrote past its %d bytes: % x", name, size, full[size:])
		}
		for i := 1; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if f.Name == "_" {
				continue
			}
			cut := int(f.Offset)
			b, _ := initProbe(w.Sizeof, cut, spare)
			if got := sizeField(b); got != cut {
				t.Errorf("%s(p, %d): size field %d", w.Calls, cut, got)
			}
			if string(b[8:cut]) != string(full[8:cut]) {
				t.Errorf("%s(p, %d): defaults % x, want % x", w.Calls, cut, b[8:cut], full[8:cut])
			}
			if !untouched(b[cut:]) {
				t.Errorf("%s(p, %d) wrote past %d bytes (up to %s)", w.Calls, cut, cut, f.Name)
			}
		}
	}
	if n == 0 {
		t.Error("the ABI table has no *_init wrappers to check")
	}
}

// The zero Query is, in C, exactly the header's FSDPA_QUERY_INIT (the
// whole trace): fsdpa_query_init() gives the initialiser's values.
func TestABIQueryInit(t *testing.T) {
	abi := loadABI(t)
	init, ok := abi.Initializers["FSDPA_QUERY_INIT"]
	if !ok || init.Struct != "fsdpa_query" {
		t.Fatalf("FSDPA_QUERY_INIT is not in the ABI table as an initialiser of fsdpa_query: %+v", init)
	}
	mine := cQueryMembers(Query{})
	if len(init.Values) != len(mine) {
		t.Errorf("FSDPA_QUERY_INIT sets %d members, the binding knows %d (%v)", len(init.Values), len(mine), init.Values)
	}
	for k, raw := range init.Values {
		var v int64
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Errorf("FSDPA_QUERY_INIT.%s = %s", k, raw)
			continue
		}
		if got, ok := mine[k]; !ok || got != v {
			t.Errorf("FSDPA_QUERY_INIT.%s = %d, the zero Query has %d (known %v)", k, v, got, ok)
		}
	}
	if mine["size"] != int64(abi.Structs["fsdpa_query"].Size) || mine["fields"] != 0 {
		t.Errorf("zero query %v", mine)
	}
}

// The package is linked against this tree's libfsdpa.so.2 (the 0.2 ABI,
// SONAME libfsdpa.so.2), found through pkg-config's fsdpa-uninstalled.pc.
func TestLinkedLibrary(t *testing.T) {
	if v := VersionNumber(); v>>8 != 0x0002 {
		t.Errorf("loaded library version %#x, want 0.2.x", v)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		fmt.Printf("# SKIP mapped-library check: %v\n", err)
		return
	}
	var mapped string
	for _, line := range strings.Split(string(maps), "\n") {
		if i := strings.Index(line, "/"); i >= 0 && strings.Contains(filepath.Base(line[i:]), "libfsdpa.so") {
			mapped = line[i:]
			break
		}
	}
	if !strings.HasPrefix(filepath.Base(mapped), "libfsdpa.so.2") {
		t.Fatalf("mapped libfsdpa: %q, want libfsdpa.so.2", mapped)
	}
	if b := os.Getenv("FSDPA_BUILD_ROOT"); b != "" {
		want, _ := filepath.EvalSymlinks(filepath.Join(b, "libfsdpa"))
		if got, _ := filepath.EvalSymlinks(filepath.Dir(mapped)); got != want {
			t.Errorf("mapped %s, not the library of this build (%s)", mapped, want)
		}
	}
	fmt.Printf("# linked against %s (%s)\n", mapped, Version())
}
