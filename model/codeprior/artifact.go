package codeprior

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Format names the artifact's layout; a reader refuses any other.
const Format = "triage-codeprior/1"

// magic starts every artifact.
var magic = []byte("TRIAGECP")

// ErrArtifact reports an artifact that cannot be read.
var ErrArtifact = errors.New("code prior artifact")

// Header is the artifact's metadata: what the model is, what it was built
// from and what it measured. Its JSON is stored in the artifact.
type Header struct {
	Format string `json:"format"`
	// Order is the n-gram order; Vocab the symbols by id.
	Order int      `json:"order"`
	Vocab []string `json:"vocab"`
	// NamesPython is the interpreter the kept names were read from.
	NamesPython string `json:"names_python"`
	// MinCount[n-1] is the adjusted count an n-gram needed to be kept.
	MinCount []int `json:"min_count"`
	// Discounts[n-1] are the modified Kneser–Ney discounts D1, D2, D3+.
	Discounts [][3]float64 `json:"discounts"`
	// Entries[n-1] is the number of stored n-grams.
	Entries []int `json:"entries"`
	// TrainTokens and TrainFiles are what the counts came from.
	TrainTokens int64 `json:"train_tokens"`
	TrainFiles  int   `json:"train_files"`
	// HeldOut says which files were held out of the counts to measure
	// perplexity.
	HeldOut string `json:"held_out"`
	// Sources are the code the model was fitted on, with provenance.
	Sources []SourceInfo `json:"sources"`
	// TaskSets are the task references every file was checked against.
	TaskSets []TaskSetInfo `json:"task_sets"`
	// Eval holds the perplexities measured at build time.
	Eval []Perplexity `json:"eval"`
}

// SourceInfo is one folder of code the model was built from.
type SourceInfo struct {
	// Label names the source ("stdlib", "python3-networkx").
	Label string `json:"label"`
	// Kind is "stdlib", "debian" or "repository".
	Kind    string `json:"kind,omitempty"`
	Package string `json:"package,omitempty"`
	Version string `json:"version,omitempty"`
	Repo    string `json:"repo,omitempty"`
	Commit  string `json:"commit,omitempty"`
	License string `json:"license,omitempty"`
	// Files is the number of .py files found; FilesSHA256 the sha256 of
	// their list ("path<TAB>sha256 of the content<LF>", sorted by path).
	Files       int    `json:"files"`
	FilesSHA256 string `json:"files_sha256"`
	// What became of the files: kept for training, held out for
	// perplexity, or dropped as overlapping a task reference, as an exact
	// copy of an earlier file, as data (mostly literals), or too large.
	Train            int `json:"train"`
	HeldOut          int `json:"held_out"`
	DroppedOverlap   int `json:"dropped_overlap"`
	DroppedDuplicate int `json:"dropped_duplicate"`
	DroppedData      int `json:"dropped_data"`
	DroppedLarge     int `json:"dropped_large"`
	// TrainTokens are the symbols of its training files.
	TrainTokens int64 `json:"train_tokens"`
	// Overlap is, per task set, how many of its files share a window with
	// that set's references and how many distinct windows they share.
	Overlap []SourceOverlap `json:"overlap"`
}

// SourceOverlap is the overlap of one source with one task set.
type SourceOverlap struct {
	TaskSet string `json:"task_set"`
	Files   int    `json:"files"`
	Windows int    `json:"windows"`
}

// TaskSetInfo is one task set whose references were excluded.
type TaskSetInfo struct {
	Name string `json:"name"`
	// Tasks is the number of references and SHA256 the sha256 of their
	// texts in order (each followed by a zero byte).
	Tasks  int    `json:"tasks"`
	SHA256 string `json:"sha256"`
	// Windows is the number of distinct normalised windows of its
	// references; NoWindow the references too short to have one.
	Windows  int `json:"windows"`
	NoWindow int `json:"no_window"`
	// FilesDropped is the number of source files sharing a window with
	// this set; WindowsMatched the distinct windows they share; TasksMatched
	// the references with a window found in some source file.
	FilesDropped   int `json:"files_dropped"`
	WindowsMatched int `json:"windows_matched"`
	TasksMatched   int `json:"tasks_matched"`
}

// Perplexity is the model's per-symbol perplexity on one text set.
type Perplexity struct {
	Set    string  `json:"set"`
	Files  int     `json:"files"`
	Tokens int64   `json:"tokens"`
	PPL    float64 `json:"ppl"`
	// UnigramPPL is the perplexity of the model's own unigram level, the
	// context-free baseline.
	UnigramPPL float64 `json:"unigram_ppl"`
}

// encode writes the artifact: magic, header length and JSON, the unigram
// level, every higher order, and a sha256 of all of it.
func encode(h *Header, m *lm) ([]byte, error) {
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("code prior header: %w", err)
	}
	var b bytes.Buffer
	b.Write(magic)
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hj))))
	b.Write(hj)
	var tmp []byte
	for i := range m.uni {
		tmp = binary.LittleEndian.AppendUint32(tmp[:0], math.Float32bits(m.uni[i]))
		tmp = binary.LittleEndian.AppendUint32(tmp, math.Float32bits(m.uniBack[i]))
		b.Write(tmp)
	}
	for n := 2; n <= m.order; n++ {
		keys, codes, book := m.keys[n-2], m.codes[n-2], m.book[n-2]
		tmp = binary.AppendUvarint(tmp[:0], uint64(len(keys)))
		tmp = binary.AppendUvarint(tmp, uint64(len(book)))
		for _, v := range book {
			tmp = binary.LittleEndian.AppendUint32(tmp, math.Float32bits(v))
		}
		b.Write(tmp)
		// A key is written as its context's index in the table of the
		// order below (as a step from the previous key's) and its last
		// symbol (as a step from the previous one's within a context).
		var prevCtx, prevW uint64
		for i, k := range keys {
			c, ok := m.ctxIndex(n, k)
			if !ok || c < prevCtx {
				return nil, fmt.Errorf("code prior: order %d entry %d: no context, or out of order", n, i)
			}
			w := uint64(k.last())
			if i > 0 && c == prevCtx {
				tmp = binary.AppendUvarint(tmp[:0], 0)
				tmp = binary.AppendUvarint(tmp, w-prevW)
			} else {
				tmp = binary.AppendUvarint(tmp[:0], c-prevCtx)
				tmp = binary.AppendUvarint(tmp, w)
			}
			prevCtx, prevW = c, w
			tmp = append(tmp, codes[i])
			if n < m.order {
				tmp = binary.AppendVarint(tmp, int64(m.back[n-2][i]))
			}
			b.Write(tmp)
		}
	}
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes(), nil
}

// decoder reads an artifact's body, failing on the first bad value.
type decoder struct {
	data []byte
	off  int
	err  error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", ErrArtifact, d.off, fmt.Sprintf(format, args...))
	}
}

// readVarint reads one varint with read (binary.Uvarint or Varint).
func readVarint[T uint64 | int64](d *decoder, what string, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.data[d.off:])
	if n <= 0 {
		d.fail("bad %s", what)
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) uvarint(what string) uint64 { return readVarint(d, what, binary.Uvarint) }

func (d *decoder) varint(what string) int64 { return readVarint(d, what, binary.Varint) }

// float reads a float32 that must be finite, and at most 0 unless signed.
func (d *decoder) float(what string, signed bool) float32 {
	if d.err != nil {
		return 0
	}
	if len(d.data)-d.off < 4 {
		d.fail("truncated %s", what)
		return 0
	}
	v := math.Float32frombits(binary.LittleEndian.Uint32(d.data[d.off:]))
	d.off += 4
	if !finite(v) || v > 0 && !signed {
		d.fail("%s %v is not a log-probability", what, v)
	}
	return v
}

func (d *decoder) byte1(what string) byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.data) {
		d.fail("truncated %s", what)
		return 0
	}
	d.off++
	return d.data[d.off-1]
}

// decode reads and checks an artifact: its checksum, header and every
// table, so that a file handed in from outside is either a usable model or
// an error.
func decode(data []byte) (*Header, *lm, error) {
	if len(data) < len(magic)+4+sha256.Size || !bytes.Equal(data[:len(magic)], magic) {
		return nil, nil, fmt.Errorf("%w: not a code prior (no %q magic)", ErrArtifact, magic)
	}
	body := data[:len(data)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[len(body):]) {
		return nil, nil, fmt.Errorf("%w: checksum mismatch (truncated or altered)", ErrArtifact)
	}
	hl := int(binary.LittleEndian.Uint32(body[len(magic):]))
	start := len(magic) + 4
	if hl > len(body)-start {
		return nil, nil, fmt.Errorf("%w: header of %d bytes in a body of %d", ErrArtifact, hl, len(body))
	}
	var h Header
	if err := json.Unmarshal(body[start:start+hl], &h); err != nil {
		return nil, nil, fmt.Errorf("%w: header: %w", ErrArtifact, err)
	}
	if err := h.check(); err != nil {
		return nil, nil, err
	}
	v := len(h.Vocab)
	d := &decoder{data: body, off: start + hl}
	m := &lm{order: h.Order}
	if (len(body)-d.off)/8 < v {
		return nil, nil, fmt.Errorf("%w: truncated unigram table", ErrArtifact)
	}
	m.uni, m.uniBack = make([]float32, v), make([]float32, v)
	for i := range v {
		m.uni[i] = d.float("unigram log-probability", false)
		m.uniBack[i] = d.float("unigram log backoff", true)
		if h.Vocab[i] == symBOS != (m.uni[i] == noProb) {
			d.fail("unigram %d: %s must be the only symbol never predicted", i, symBOS)
		}
	}
	for n := 2; n <= h.Order && d.err == nil; n++ {
		d.order(m, n, v, h.Entries[n-1])
	}
	if d.err == nil && d.off != len(body) {
		d.fail("%d bytes after the last table", len(body)-d.off)
	}
	if d.err != nil {
		return nil, nil, d.err
	}
	return &h, m, nil
}

// order reads the table of order n.
func (d *decoder) order(m *lm, n, v, want int) {
	count := d.uvarint("entry count")
	books := d.uvarint("codebook size")
	switch {
	case d.err != nil:
		return
	case count != uint64(want):
		d.fail("order %d: %d entries, the header says %d", n, count, want)
		return
	case count > uint64(len(d.data)-d.off)/3: // every entry takes three bytes or more
		d.fail("order %d: %d entries in %d bytes", n, count, len(d.data)-d.off)
		return
	case books > 256 || books == 0 && count > 0:
		d.fail("order %d: codebook of %d values", n, books)
		return
	}
	book := make([]float32, books)
	for i := range book {
		book[i] = d.float("codebook value", false)
	}
	keys, codes := make([]gram, count), make([]uint8, count)
	var back []int32
	if n < m.order {
		back = make([]int32, count)
	}
	var c, w uint64
	contexts := uint64(v)
	if n > 2 {
		contexts = uint64(len(m.keys[n-3]))
	}
	for i := range keys {
		dc, dw := d.uvarint("context"), d.uvarint("symbol")
		if d.err != nil {
			return
		}
		if i == 0 || dc > 0 {
			c, w = c+dc, dw
		} else {
			w += dw
		}
		switch {
		case i > 0 && dc == 0 && dw == 0 || c >= contexts || dc >= contexts:
			d.fail("order %d entry %d: keys out of order or range", n, i)
			return
		case w >= uint64(v):
			d.fail("order %d entry %d: symbol out of the vocabulary", n, i)
			return
		}
		ctx := gram{lo: c}
		if n > 2 {
			ctx = m.keys[n-3][c]
		}
		keys[i] = ctx.push(uint16(w))
		codes[i] = d.byte1("code")
		if uint64(codes[i]) >= books {
			d.fail("order %d entry %d: code %d of %d", n, i, codes[i], books)
		}
		if back != nil {
			b := d.varint("backoff")
			if b < -maxBack || b > maxBack {
				d.fail("order %d entry %d: backoff out of range", n, i)
			}
			back[i] = int32(b)
		}
		if d.err != nil {
			return
		}
	}
	m.keys, m.codes, m.book = append(m.keys, keys), append(m.codes, codes), append(m.book, book)
	if back != nil {
		m.back = append(m.back, back)
	}
}

// check validates a header read from an artifact.
func (h *Header) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: header: %s", ErrArtifact, fmt.Sprintf(format, args...))
	}
	switch {
	case h.Format != Format:
		return bad("format %q, want %q", h.Format, Format)
	case h.Order < 1 || h.Order > maxOrder:
		return bad("order %d, want 1..%d", h.Order, maxOrder)
	case len(h.Entries) != h.Order:
		return bad("%d entry counts for order %d", len(h.Entries), h.Order)
	case len(h.Vocab) != h.Entries[0]:
		return bad("%d symbols, %d unigrams", len(h.Vocab), h.Entries[0])
	}
	if _, err := newVocab(h.Vocab); err != nil {
		return bad("%v", err)
	}
	return nil
}
