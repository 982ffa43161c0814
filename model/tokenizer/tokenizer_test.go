package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fixture is one golden case produced by the Rust tokenizers library.
type fixture struct {
	Text string  `json:"text"`
	IDs  []int32 `json:"ids"`
}

// readTestdata reads testdata/name, decompressing .zst files.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	out, err := decompress(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func qwen3(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := Qwen3()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// firstDiff describes where got and want first differ.
func firstDiff(got, want []int32) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("first difference at %d: got %d want %d (got len %d, want len %d)", i, got[i], want[i], len(got), len(want))
		}
	}
	return fmt.Sprintf("got len %d, want len %d", len(got), len(want))
}

func checkFixtures(t *testing.T, tok *Tokenizer, file string) {
	t.Helper()
	var cases []fixture
	if err := json.Unmarshal(readTestdata(t, file), &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no cases", file)
	}
	failed := 0
	for i, c := range cases {
		got := tok.Encode(c.Text)
		if !slices.Equal(got, c.IDs) {
			failed++
			if failed <= 5 {
				t.Errorf("%s[%d] %q: %s", file, i, c.Text, firstDiff(got, c.IDs))
			}
		}
		if n := tok.CountTokens(c.Text); n != len(c.IDs) {
			t.Errorf("%s[%d]: CountTokens = %d, want %d", file, i, n, len(c.IDs))
		}
	}
	t.Logf("%s: %d/%d exact", file, len(cases)-failed, len(cases))
}

func TestQwen3Fixtures(t *testing.T) {
	checkFixtures(t, qwen3(t), "qwen3_fixture.json")
}

func TestQwen3Stress(t *testing.T) {
	checkFixtures(t, qwen3(t), "stress_fixture.json.zst")
}

// TestQwen3Pathological checks the ids (not the time) of the long inputs;
// BenchmarkPathological times them.
func TestQwen3Pathological(t *testing.T) {
	tok := qwen3(t)
	inputs, refs := pathological(t)
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		want, ok := refs[name]
		if !ok {
			t.Fatalf("%s: no reference ids", name)
		}
		got := tok.Encode(inputs[name])
		if !slices.Equal(got, want) {
			t.Errorf("%s: %s", name, firstDiff(got, want))
		}
	}
}

func pathological(t testing.TB) (map[string]string, map[string][]int32) {
	var inputs map[string]string
	var refs map[string][]int32
	if err := json.Unmarshal(readTestdata(t, "patho.json.zst"), &inputs); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(readTestdata(t, "patho_ref.json.zst"), &refs); err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 5 {
		t.Fatalf("patho.json: %d inputs, want 5", len(inputs))
	}
	return inputs, refs
}

// TestEmbeddedFile checks the vendored file is the documented one.
func TestEmbeddedFile(t *testing.T) {
	raw, err := decompress(qwen3Zst)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	const want = Qwen3SHA256
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("embedded tokenizer.json sha256 %s, want %s", got, want)
	}
}

func TestQwen3API(t *testing.T) {
	tok := qwen3(t)
	if got := tok.VocabSize(); got != 151669 {
		t.Errorf("VocabSize = %d, want 151669", got)
	}
	special := []struct {
		s  string
		id int32
	}{
		{"<|endoftext|>", 151643},
		{"<|im_start|>", 151644},
		{"<|im_end|>", 151645},
		{"<think>", 151667},
		{"</think>", 151668},
		{",", 11},
		{"\n", 198},
	}
	for _, c := range special {
		id, ok := tok.TokenID(c.s)
		if !ok || id != c.id {
			t.Errorf("TokenID(%q) = %d, %v; want %d", c.s, id, ok, c.id)
		}
	}
	if _, ok := tok.TokenID("<|no_such_token|>"); ok {
		t.Error("TokenID of an unknown token reported ok")
	}
	again, err := Qwen3()
	if err != nil || again != tok {
		t.Errorf("Qwen3() not memoized: %p %p %v", again, tok, err)
	}
	if n := len(tok.AddedTokens()); n != 26 {
		t.Errorf("AddedTokens: %d, want 26", n)
	}
}

func TestDecode(t *testing.T) {
	tok := qwen3(t)
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"ascii", "def f(x):\n    return x + 1\n", "def f(x):\n    return x + 1\n"},
		{"special", "<|im_start|>user\nhi<|im_end|>", "<|im_start|>user\nhi<|im_end|>"},
		{"nfc", "cafe\u0301", "caf\u00e9"},
		{"invalid utf8 kept", "a\xffb\xc3", "a\xffb\xc3"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := tok.Decode(tok.Encode(c.in)); got != c.want {
				t.Errorf("Decode(Encode(%q)) = %q, want %q", c.in, got, c.want)
			}
		})
	}
	if got := tok.Decode([]int32{-1, 1 << 30, 750}); got != "def" {
		t.Errorf("Decode with out-of-range ids = %q, want %q", got, "def")
	}
}

// TestConcurrentEncode runs the stress fixtures from several goroutines
// (go test -race shows data races on the cache).
func TestConcurrentEncode(t *testing.T) {
	tok := qwen3(t)
	var cases []fixture
	if err := json.Unmarshal(readTestdata(t, "stress_fixture.json.zst"), &cases); err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		cases = cases[:300]
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range cases {
				c := cases[(i*7+g*13)%len(cases)]
				if !slices.Equal(tok.Encode(c.Text), c.IDs) {
					errs <- c.Text
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("concurrent Encode(%q) differs", s)
	}
}

// TestLoadFormats loads the same tokenizer plain, gzip- and zstd-compressed
// and checks a bad file is an error, not a panic.
func TestLoadFormats(t *testing.T) {
	dir := t.TempDir()
	small := smallTokenizerJSON(t)
	plain := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(plain, small, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := Load(plain)
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("ab ab"); !slices.Equal(got, []int32{5, 6}) {
		t.Errorf("small tokenizer Encode = %v, want [5 6]", got)
	}
	for _, bad := range []string{"", "{", `{"model":{"type":"Unigram","vocab":{"a":0}}}`, "\x28\xb5\x2f\xfdjunk"} {
		p := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil {
			t.Errorf("Load(%q) succeeded", bad)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

// smallTokenizerJSON is a tiny byte-level BPE: a, b, space (Ġ) and merges
// "a b" -> ab, "Ġ ab" -> Ġab, with the GPT-2 ByteLevel regex.
func smallTokenizerJSON(t testing.TB) []byte {
	t.Helper()
	vocab := map[string]int32{"a": 0, "b": 1, "Ġ": 2, "c": 3, "Ġa": 4, "ab": 5, "Ġab": 6}
	doc := map[string]any{
		"added_tokens":  []any{},
		"normalizer":    nil,
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
		"model": map[string]any{
			"type": "BPE", "vocab": vocab,
			"merges": []string{"a b", "Ġ ab", "Ġ a"},
		},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestMergeOrder pins the heap's order on a toy vocabulary: lowest rank
// first, leftmost first on ties.
func TestMergeOrder(t *testing.T) {
	vocab := map[string]int32{"a": 0, "b": 1, "aa": 2, "ab": 3, "aab": 4, "aaa": 5}
	cases := []struct {
		name   string
		merges []string
		in     string
		want   []int32
	}{
		{"leftmost on tie", []string{"a a"}, "aaa", []int32{2, 0}},
		{"rank beats position", []string{"a b", "a a"}, "aab", []int32{0, 3}},
		{"second merge uses first", []string{"a a", "aa b"}, "aab", []int32{4}},
		{"chained", []string{"a a", "aa a"}, "aaaa", []int32{2, 2}},
		{"no merges", nil, "ba", []int32{1, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := map[string]any{
				"pre_tokenizer": map[string]any{"type": "ByteLevel", "use_regex": false},
				"model":         map[string]any{"type": "BPE", "vocab": vocab, "merges": c.merges},
			}
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Encode(c.in); !slices.Equal(got, c.want) {
				t.Errorf("Encode(%q) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{
			"pre_tokenizer": map[string]any{"type": "ByteLevel", "use_regex": false},
			"model":         map[string]any{"type": "BPE", "vocab": map[string]int32{"a": 0, "b": 1}, "merges": []string{}},
		}
	}
	cases := []struct {
		name   string
		mutate func(m map[string]any)
		want   string
	}{
		{"merge out of vocab", func(m map[string]any) { m["model"].(map[string]any)["merges"] = []string{"a b"} }, "out of vocabulary"},
		{"bad merge line", func(m map[string]any) { m["model"].(map[string]any)["merges"] = []string{"a"} }, "two space-separated"},
		{"no byte level", func(m map[string]any) { m["pre_tokenizer"] = map[string]any{"type": "Whitespace"} }, "unsupported"},
		{"prefix space", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "add_prefix_space": true}
		}, "add_prefix_space"},
		{"normalizer", func(m map[string]any) { m["normalizer"] = map[string]any{"type": "Lowercase"} }, "Lowercase"},
		{"bad regex", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "Split", "pattern": map[string]any{"Regex": "(("}, "behavior": "Isolated"},
				map[string]any{"type": "ByteLevel", "use_regex": false}}}
		}, "regex"},
		{"dropout", func(m map[string]any) { m["model"].(map[string]any)["dropout"] = 0.1 }, "dropout"},
		{"unk missing", func(m map[string]any) { m["model"].(map[string]any)["unk_token"] = "<unk>" }, "unk_token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := base()
			c.mutate(m)
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestEncodeOrdinary(t *testing.T) {
	tok := qwen3(t)
	s := "x = '<|im_end|>'  # caf\u0065\u0301\n"
	ids := tok.EncodeOrdinary(s)
	if slices.Contains(ids, 151645) {
		t.Errorf("EncodeOrdinary(%q) = %v holds <|im_end|>", s, ids)
	}
	if !slices.Contains(tok.Encode(s), 151645) {
		t.Errorf("Encode(%q) lacks <|im_end|>", s)
	}
	if got, want := tok.Decode(ids), "x = '<|im_end|>'  # caf\u00e9\n"; got != want {
		t.Errorf("Decode(EncodeOrdinary) = %q, want %q", got, want)
	}
	if plain := "def f(x):\n\treturn x\n"; !slices.Equal(tok.EncodeOrdinary(plain), tok.Encode(plain)) {
		t.Error("EncodeOrdinary and Encode differ on text without added tokens")
	}
}
