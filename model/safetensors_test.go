package model

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// stFile builds a safetensors byte stream from a header string and data size.
func stFile(header string, dataSize int) []byte {
	var buf bytes.Buffer
	_ = binary.Write(&buf, binary.LittleEndian, uint64(len(header)))
	buf.WriteString(header)
	buf.Write(make([]byte, dataSize))
	return buf.Bytes()
}

func TestParseSafetensorsHeader(t *testing.T) {
	tests := []struct {
		name, header string
		data         int
		wantErr      string
	}{
		{"ok", `{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"b":{"dtype":"BF16","shape":[4],"data_offsets":[24,32]},"__metadata__":{"format":"pt"}}`, 32, ""},
		{"scalar", `{"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}`, 4, ""},
		{"unknown dtype", `{"a":{"dtype":"F8","shape":[2],"data_offsets":[0,2]}}`, 2, "unknown dtype"},
		{"size mismatch", `{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}}`, 24, "needs 24 bytes"},
		{"out of bounds", `{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}`, 16, "outside"},
		{"overlap", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, 12, "overlap"},
		{"negative offset", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}}`, 4, "outside"},
		{"one offset", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}}`, 4, "2"},
		{"negative dim", `{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`, 0, "negative"},
		{"overflow", `{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, 0, "overflow"},
		{"not object", `[1,2]`, 0, "JSON object"},
		{"bad json", `{"a":`, 0, "header"},
		{"bad metadata", `{"__metadata__":{"x":1}}`, 0, "__metadata__"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := stFile(tc.header, tc.data)
			infos, _, start, err := ParseSafetensorsHeader(f, int64(len(f)))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if start != int64(8+len(tc.header)) {
				t.Errorf("data start %d", start)
			}
			for i := 1; i < len(infos); i++ {
				if infos[i].Begin < infos[i-1].End {
					t.Errorf("not sorted by offset: %+v", infos)
				}
			}
		})
	}
	// Header length larger than the file, or than the limit.
	f := stFile(`{}`, 0)
	binary.LittleEndian.PutUint64(f, 1000)
	if _, _, _, err := ParseSafetensorsHeader(f, int64(len(f))); err == nil {
		t.Error("header past the end accepted")
	}
	binary.LittleEndian.PutUint64(f, MaxSafetensorsHeader+1)
	if _, _, _, err := ParseSafetensorsHeader(f, 1<<40); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("huge header: %v", err)
	}
	if _, _, _, err := ParseSafetensorsHeader([]byte{1, 2}, 2); err == nil {
		t.Error("short file accepted")
	}
}

func FuzzParseSafetensorsHeader(f *testing.F) {
	f.Add(stFile(`{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}`, 24))
	f.Add(stFile(`{"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]}}`, 8))
	f.Add(stFile(`{"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}`, 3))
	if data, err := os.ReadFile(filepath.Join(adapterDir, AdapterWeightsFile)); err == nil {
		f.Add(data[:4096])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		infos, _, start, err := ParseSafetensorsHeader(data, int64(len(data)))
		if err != nil {
			return
		}
		var prevEnd int64
		for _, ti := range infos {
			if ti.Begin < prevEnd || ti.End < ti.Begin || start+ti.End > int64(len(data)) {
				t.Fatalf("accepted bad offsets %+v (data start %d, file %d)", ti, start, len(data))
			}
			prevEnd = ti.End
			raw := data[start+ti.Begin : start+ti.End]
			if ti.DType == "F32" || ti.DType == "BF16" || ti.DType == "F16" {
				if _, err := tensorFromRaw(ti.DType, ti.Shape, raw); err != nil {
					t.Fatalf("valid tensor %q did not convert: %v", ti.Name, err)
				}
			}
		}
	})
}

func TestSafetensorsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.safetensors")
	bf := []bfloat16.BFloat16{bfloat16.FromFloat32(1.5), bfloat16.FromFloat32(-2), bfloat16.FromFloat32(0.25)}
	in := map[string]*tensors.Tensor{
		"w.f32":  tensors.FromFlatDataAndDimensions([]float32{1, 2, 3, 4, 5, 6}, 2, 3),
		"w.bf16": tensors.FromFlatDataAndDimensions(bf, 3),
		"ids":    tensors.FromFlatDataAndDimensions([]int32{7, -8}, 2),
	}
	if err := WriteSafetensorsFile(path, in, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	st, err := OpenSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Metadata["format"] != "pt" || strings.Join(st.Names(), ",") != "ids,w.bf16,w.f32" {
		t.Fatalf("metadata %v names %v", st.Metadata, st.Names())
	}
	f, err := st.Tensor("w.f32")
	if err != nil {
		t.Fatal(err)
	}
	if got := tensors.MustCopyFlatData[float32](f); f.Shape().Dimensions[1] != 3 || got[5] != 6 {
		t.Errorf("f32 round trip %v %v", f.Shape(), got)
	}
	b, _ := st.Tensor("w.bf16")
	if b.DType() != dtypes.BFloat16 || tensors.MustCopyFlatData[bfloat16.BFloat16](b)[1].Float32() != -2 {
		t.Errorf("bf16 round trip %v", b)
	}
	if _, err := st.Tensor("nope"); err == nil {
		t.Error("missing tensor returned")
	}
	// bf16 → f32 conversion is exact.
	c, err := convertTensor(b, dtypes.Float32)
	if err != nil || tensors.MustCopyFlatData[float32](c)[0] != 1.5 {
		t.Errorf("convert: %v %v", c, err)
	}
}

func TestF16ToF32(t *testing.T) {
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x3555, 0.333251953125}, {0x7bff, 65504}, {0x0001, 5.960464477539063e-08},
		{0x0000, 0}, {0x7c00, float32(math.Inf(1))},
	}
	for _, tc := range tests {
		if got := f16ToF32(tc.h); got != tc.want {
			t.Errorf("f16ToF32(%#x) = %g, want %g", tc.h, got, tc.want)
		}
	}
	if !math.IsNaN(float64(f16ToF32(0x7e00))) {
		t.Error("NaN lost")
	}
	// F16 tensors load widened to float32.
	raw := []byte{0x00, 0x3c, 0x00, 0xc0}
	tt, err := tensorFromRaw("F16", []int{2}, raw)
	if err != nil || tt.DType() != dtypes.Float32 || tensors.MustCopyFlatData[float32](tt)[1] != -2 {
		t.Errorf("F16 tensor: %v %v", tt, err)
	}
}

func TestOpenSafetensorsErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenSafetensors(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file opened")
	}
	p := filepath.Join(dir, "short")
	_ = os.WriteFile(p, []byte{1, 2, 3}, 0o644)
	if _, err := OpenSafetensors(p); err == nil {
		t.Error("short file opened")
	}
	p = filepath.Join(dir, "bad")
	_ = os.WriteFile(p, stFile(`{"a":{"dtype":"F32","shape":[9],"data_offsets":[0,36]}}`, 4), 0o644)
	if _, err := OpenSafetensors(p); err == nil {
		t.Error("truncated data opened")
	}
}
