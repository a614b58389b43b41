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
		Size   uintptr `json:"size"`
		Align  uintptr `json:"align"`
		Fields []struct {
			Name   string  `json:"name"`
			Offset uintptr `json:"offset"`
			Size   uintptr `json:"size"`
		} `json:"fields"`
	} `json:"structs"`
	Enums map[string]struct {
		Size   int              `json:"size"`
		Values map[string]int64 `json:"values"`
	} `json:"enums"`
	Constants map[string]int64 `json:"constants"`
	Functions map[string]struct {
		Ret    string   `json:"ret"`
		Params []string `json:"params"`
	} `json:"functions"`
}

func loadABI(t *testing.T) abiTable {
	var a abiTable
	if err := json.Unmarshal(abiJSON(t), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// cgo's layout of every C struct this package uses equals the header's.
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
	for name := range abi.Structs {
		if _, ok := cStructs()[name]; !ok {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		fmt.Printf("# note: header structs the Go binding does not use: %v\n", missing)
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
			"FSDPA_FORMAT_HTML": int64(FormatHTML)},
		"fsdpa_comm_split_by": {"FSDPA_SPLIT_COLLECTIVE": int64(SplitCollective),
			"FSDPA_SPLIT_PROCESS_GROUP": int64(SplitProcessGroup)},
		"fsdpa_fsdp_phase": {"FSDPA_PHASE_FORWARD": int64(PhaseForward), "FSDPA_PHASE_BACKWARD": int64(PhaseBackward)},
		"fsdpa_backward_pattern": {"FSDPA_BWD_UNKNOWN": int64(BackwardUnknown), "FSDPA_BWD_ZIGZAG": int64(BackwardZigzag),
			"FSDPA_BWD_NO_PREFETCH": int64(BackwardNoPrefetch), "FSDPA_BWD_SERIALIZED": int64(BackwardSerialized)},
		"fsdpa_wait_source": {"FSDPA_WAIT_UNKNOWN": int64(WaitUnknown), "FSDPA_WAIT_CUDA_SYNC": int64(WaitCudaSync),
			"FSDPA_WAIT_OWN_OP": int64(WaitOwnOp), "FSDPA_WAIT_INFERRED": int64(WaitInferred)},
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

// Every function of the header is called by the package (cgo type-checks
// each call against the header it compiles); a function the header gains is
// a note until the binding wraps it.  A call to a function the header in
// this tree does not declare fails (conversions to its enum types are
// not calls).
func TestABIFunctions(t *testing.T) {
	abi := loadABI(t)
	files, err := filepath.Glob(filepath.Join(thisDir(), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	callRE := regexp.MustCompile(`\bC\.(fsdpa_[a-z0-9_]+)\(`)
	used := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
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
	var missing []string
	for name := range abi.Functions {
		if !used[name] {
			missing = append(missing, name)
		}
	}
	for name := range used {
		_, fn := abi.Functions[name]
		_, enum := abi.Enums[name] // conversions such as C.fsdpa_status(s)
		_, st := abi.Structs[name]
		if !fn && !enum && !st {
			t.Errorf("the package calls %s, which fsdpa.h does not declare", name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		fmt.Printf("# note: header functions the Go binding does not call: %v\n", missing)
	} else {
		fmt.Printf("# all %d functions of fsdpa.h are called by the Go binding\n", len(abi.Functions))
	}
}
