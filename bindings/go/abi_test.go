package fsdpa

import (
	"encoding/json"
	"fmt"
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
	if abi.Constants["FSDPA_ABSENT"] != absent {
		t.Errorf("FSDPA_ABSENT: header %d", abi.Constants["FSDPA_ABSENT"])
	}
	if abi.HeaderVersion != Version() {
		t.Errorf("loaded library %s, header in this tree %s", Version(), abi.HeaderVersion)
	}
}
