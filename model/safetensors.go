package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// MaxSafetensorsHeader bounds the JSON header of a safetensors file (the
// reference implementation uses the same 100 MB limit).
const MaxSafetensorsHeader = 100 << 20

// TensorInfo describes one tensor of a safetensors file. Begin and End are
// byte offsets into the data section (after the header).
type TensorInfo struct {
	Name  string
	DType string
	Shape []int
	Begin int64
	End   int64
}

// safetensorsDTypes maps the file's dtype names to element sizes.
var safetensorsDTypes = map[string]int64{
	"F64": 8, "F32": 4, "F16": 2, "BF16": 2,
	"I64": 8, "I32": 4, "I16": 2, "I8": 1, "U64": 8, "U8": 1, "BOOL": 1,
}

// ParseSafetensorsHeader parses and validates the header at the start of a
// safetensors file of fileSize bytes. prefix must hold at least the 8-byte
// length and the JSON header (it may hold more). It returns the tensors sorted
// by data offset, the metadata and the offset of the data section. Checks: the
// header size is bounded and within the file; every dtype is known; every
// shape's byte size equals its offset span; offsets are in bounds and do not
// overlap.
func ParseSafetensorsHeader(prefix []byte, fileSize int64) ([]TensorInfo, map[string]string, int64, error) {
	if len(prefix) < 8 || fileSize < 8 {
		return nil, nil, 0, errors.New("safetensors: file shorter than the 8-byte header length")
	}
	n := binary.LittleEndian.Uint64(prefix[:8])
	if n > MaxSafetensorsHeader {
		return nil, nil, 0, fmt.Errorf("safetensors: header of %d bytes exceeds the %d limit", n, MaxSafetensorsHeader)
	}
	if int64(n) > fileSize-8 {
		return nil, nil, 0, fmt.Errorf("safetensors: header of %d bytes runs past the end of a %d-byte file", n, fileSize)
	}
	if uint64(len(prefix)-8) < n {
		return nil, nil, 0, fmt.Errorf("safetensors: %d header bytes given, %d needed", len(prefix)-8, n)
	}
	hdr := prefix[8 : 8+n]
	if len(bytes.TrimSpace(hdr)) == 0 || bytes.TrimSpace(hdr)[0] != '{' {
		return nil, nil, 0, errors.New("safetensors: header is not a JSON object")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, nil, 0, fmt.Errorf("safetensors: header: %w", err)
	}
	dataStart := int64(8 + n)
	dataSize := fileSize - dataStart
	var meta map[string]string
	infos := make([]TensorInfo, 0, len(raw))
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &meta); err != nil {
				return nil, nil, 0, fmt.Errorf("safetensors: __metadata__: %w", err)
			}
			continue
		}
		info, err := parseTensorEntry(name, msg, dataSize)
		if err != nil {
			return nil, nil, 0, err
		}
		infos = append(infos, info)
	}
	sort.Slice(infos, func(i, j int) bool {
		if infos[i].Begin != infos[j].Begin {
			return infos[i].Begin < infos[j].Begin
		}
		return infos[i].End < infos[j].End
	})
	for i := 1; i < len(infos); i++ {
		if infos[i].Begin < infos[i-1].End {
			return nil, nil, 0, fmt.Errorf("safetensors: tensors %q and %q overlap", infos[i-1].Name, infos[i].Name)
		}
	}
	return infos, meta, dataStart, nil
}

// parseTensorEntry reads the header entry of tensor name: a known dtype,
// two offsets within the data section of dataSize bytes, and a shape whose
// byte size is their span.
func parseTensorEntry(name string, msg json.RawMessage, dataSize int64) (TensorInfo, error) {
	var e struct {
		DType   string  `json:"dtype"`
		Shape   []int64 `json:"shape"`
		Offsets []int64 `json:"data_offsets"`
	}
	if err := json.Unmarshal(msg, &e); err != nil {
		return TensorInfo{}, fmt.Errorf("safetensors: tensor %q: %w", name, err)
	}
	size, ok := safetensorsDTypes[e.DType]
	if !ok {
		return TensorInfo{}, fmt.Errorf("safetensors: tensor %q: unknown dtype %q", name, e.DType)
	}
	if len(e.Offsets) != 2 {
		return TensorInfo{}, fmt.Errorf("safetensors: tensor %q: data_offsets has %d values, want 2", name, len(e.Offsets))
	}
	begin, end := e.Offsets[0], e.Offsets[1]
	if begin < 0 || end < begin || end > dataSize {
		return TensorInfo{}, fmt.Errorf("safetensors: tensor %q: offsets [%d, %d] outside the %d-byte data section",
			name, begin, end, dataSize)
	}
	nbytes := size
	dims := make([]int, len(e.Shape))
	for i, d := range e.Shape {
		if d < 0 {
			return TensorInfo{}, fmt.Errorf("safetensors: tensor %q: negative dimension %d", name, d)
		}
		if d != 0 && nbytes > math.MaxInt64/d {
			return TensorInfo{}, fmt.Errorf("safetensors: tensor %q: shape %v overflows", name, e.Shape)
		}
		nbytes *= d
		dims[i] = int(d)
	}
	if nbytes != end-begin {
		return TensorInfo{}, fmt.Errorf("safetensors: tensor %q: shape %v of %s needs %d bytes, offsets span %d",
			name, e.Shape, e.DType, nbytes, end-begin)
	}
	return TensorInfo{Name: name, DType: e.DType, Shape: dims, Begin: begin, End: end}, nil
}

// Safetensors is an open, memory-mapped safetensors file. Each tensor is
// copied once, from the mapping into a GoMLX tensor, when asked for.
type Safetensors struct {
	path  string
	data  []byte // the whole file, mmapped
	start int64
	infos map[string]TensorInfo
	names []string
	// Metadata is the file's __metadata__ block (may be nil).
	Metadata map[string]string
}

// OpenSafetensors maps path into memory and validates its header.
func OpenSafetensors(path string) (*Safetensors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	size := st.Size()
	if size < 8 {
		return nil, fmt.Errorf("safetensors: %s: file of %d bytes is too short", path, size)
	}
	if size > math.MaxInt {
		return nil, fmt.Errorf("safetensors: %s: too large", path)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("safetensors: mmap %s: %w", path, err)
	}
	infos, meta, start, err := ParseSafetensorsHeader(data, size)
	if err != nil {
		_ = syscall.Munmap(data)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &Safetensors{path: path, data: data, start: start, infos: map[string]TensorInfo{}, Metadata: meta}
	for _, ti := range infos {
		s.infos[ti.Name] = ti
		s.names = append(s.names, ti.Name)
	}
	sort.Strings(s.names)
	return s, nil
}

// Close unmaps the file; tensors returned earlier remain valid (they are copies).
func (s *Safetensors) Close() error {
	if s.data == nil {
		return nil
	}
	err := syscall.Munmap(s.data)
	s.data = nil
	if err != nil {
		return fmt.Errorf("safetensors: munmap %s: %w", s.path, err)
	}
	return nil
}

// Names lists the tensor names, sorted.
func (s *Safetensors) Names() []string { return append([]string(nil), s.names...) }

// Info returns the description of one tensor.
func (s *Safetensors) Info(name string) (TensorInfo, bool) {
	ti, ok := s.infos[name]
	return ti, ok
}

// Tensor copies one tensor out of the file. F32, BF16, I64 and I32 keep their
// type; F16 is widened to float32 (the Go backend has no float16).
func (s *Safetensors) Tensor(name string) (*tensors.Tensor, error) {
	if s.data == nil {
		return nil, fmt.Errorf("safetensors: %s is closed", s.path)
	}
	ti, ok := s.infos[name]
	if !ok {
		return nil, fmt.Errorf("safetensors: %s: no tensor %q", s.path, name)
	}
	raw := s.data[s.start+ti.Begin : s.start+ti.End]
	return tensorFromRaw(ti.DType, ti.Shape, raw)
}

// tensorFromRaw converts little-endian raw bytes of a safetensors dtype.
func tensorFromRaw(dt string, dims []int, raw []byte) (*tensors.Tensor, error) {
	var gdt dtypes.DType
	switch dt {
	case "F32":
		gdt = dtypes.Float32
	case "BF16":
		gdt = dtypes.BFloat16
	case "I64":
		gdt = dtypes.Int64
	case "I32":
		gdt = dtypes.Int32
	case "F64":
		gdt = dtypes.Float64
	case "U64":
		gdt = dtypes.Uint64
	case "F16":
		t := tensors.FromShape(shapes.Make(dtypes.Float32, dims...))
		if len(raw) == 0 {
			return t, nil
		}
		err := tensors.MutableFlatData(t, func(flat []float32) {
			for i := range flat {
				flat[i] = f16ToF32(binary.LittleEndian.Uint16(raw[2*i:]))
			}
		})
		if err != nil {
			return nil, fmt.Errorf("safetensors: %w", err)
		}
		return t, nil
	default:
		return nil, fmt.Errorf("safetensors: dtype %s is not loadable", dt)
	}
	t := tensors.FromShape(shapes.Make(gdt, dims...))
	if len(raw) == 0 {
		return t, nil
	}
	if err := t.MutableBytes(func(data []byte) { copy(data, raw) }); err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	return t, nil
}

// f16ToF32 widens an IEEE half-precision value.
func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		f := float32(mant) / 1024 / 16384
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// safetensorsName maps a GoMLX dtype to the safetensors name.
func safetensorsName(dt dtypes.DType) (string, error) {
	switch dt {
	case dtypes.Float32:
		return "F32", nil
	case dtypes.BFloat16:
		return "BF16", nil
	case dtypes.Int64:
		return "I64", nil
	case dtypes.Int32:
		return "I32", nil
	case dtypes.Float64:
		return "F64", nil
	case dtypes.Uint64:
		return "U64", nil
	}
	return "", fmt.Errorf("safetensors: cannot write dtype %s", dt)
}

// WriteSafetensors writes named tensors to w in safetensors format, names
// sorted, 8-byte aligned header.
func WriteSafetensors(w io.Writer, ts map[string]*tensors.Tensor, metadata map[string]string) error {
	names := make([]string, 0, len(ts))
	for n := range ts {
		names = append(names, n)
	}
	sort.Strings(names)
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var off int64
	for _, n := range names {
		t := ts[n]
		dt, err := safetensorsName(t.DType())
		if err != nil {
			return fmt.Errorf("tensor %q: %w", n, err)
		}
		size := int64(t.Shape().Memory())
		header[n] = map[string]any{"dtype": dt, "shape": append([]int{}, t.Shape().Dimensions...),
			"data_offsets": []int64{off, off + size}}
		off += size
	}
	hdr, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("safetensors: header: %w", err)
	}
	for len(hdr)%8 != 0 {
		hdr = append(hdr, ' ')
	}
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(hdr)))
	if _, err := w.Write(lenBuf[:]); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	if _, err := w.Write(hdr); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	for _, n := range names {
		if ts[n].Shape().Size() == 0 {
			continue
		}
		var werr error
		if err := ts[n].ConstBytes(func(data []byte) { _, werr = w.Write(data) }); err != nil {
			return fmt.Errorf("safetensors: tensor %q: %w", n, err)
		}
		if werr != nil {
			return fmt.Errorf("safetensors: %w", werr)
		}
	}
	return nil
}

// WriteSafetensorsFile writes a safetensors file atomically (temp file, rename).
func WriteSafetensorsFile(path string, ts map[string]*tensors.Tensor, metadata map[string]string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*.safetensors")
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := WriteSafetensors(tmp, ts, metadata); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	return nil
}
