package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"
)

// fileJSON is the part of a Hugging Face tokenizer.json that a byte-level
// BPE needs. post_processor is not read: Encode never adds template tokens
// (the reference's add_special_tokens=False).
type fileJSON struct {
	AddedTokens  []AddedToken    `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        modelJSON       `json:"model"`
}

type modelJSON struct {
	Type                    string           `json:"type"`
	Dropout                 *float64         `json:"dropout"`
	UnkToken                *string          `json:"unk_token"`
	ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string          `json:"end_of_word_suffix"`
	FuseUnk                 bool             `json:"fuse_unk"`
	ByteFallback            bool             `json:"byte_fallback"`
	IgnoreMerges            bool             `json:"ignore_merges"`
	Vocab                   map[string]int32 `json:"vocab"`
	Merges                  json.RawMessage  `json:"merges"`
}

// component is a normalizer, pre-tokenizer or decoder object.
type component struct {
	Type           string        `json:"type"`
	Normalizers    []component   `json:"normalizers"`
	Pretokenizers  []component   `json:"pretokenizers"`
	Pattern        *splitPattern `json:"pattern"`
	Behavior       string        `json:"behavior"`
	Invert         bool          `json:"invert"`
	AddPrefixSpace bool          `json:"add_prefix_space"`
	UseRegex       *bool         `json:"use_regex"`
}

type splitPattern struct {
	Regex  *string `json:"Regex"`
	String *string `json:"String"`
}

// isNull reports whether a raw JSON value is absent or null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// parseNormalizer returns the Unicode normal forms to apply, in order.
func parseNormalizer(raw json.RawMessage) ([]norm.Form, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	return normalizerForms(c)
}

func normalizerForms(c component) ([]norm.Form, error) {
	switch c.Type {
	case "NFC":
		return []norm.Form{norm.NFC}, nil
	case "NFD":
		return []norm.Form{norm.NFD}, nil
	case "NFKC":
		return []norm.Form{norm.NFKC}, nil
	case "NFKD":
		return []norm.Form{norm.NFKD}, nil
	case "Sequence":
		var forms []norm.Form
		for _, sub := range c.Normalizers {
			f, err := normalizerForms(sub)
			if err != nil {
				return nil, err
			}
			forms = append(forms, f...)
		}
		return forms, nil
	}
	return nil, fmt.Errorf("normalizer %q: %w", c.Type, errUnsupported)
}

// errUnsupported marks a tokenizer.json feature this package does not
// implement (rather than silently producing ids that differ).
var errUnsupported = errors.New("unsupported by this byte-level BPE")

// parsePreTokenizer returns the splitter of the pre-tokenizer and whether
// it is exactly the Qwen2 pattern. It requires a ByteLevel step.
func parsePreTokenizer(raw json.RawMessage) (sp splitter, qwen2 bool, err error) {
	if isNull(raw) {
		return nil, false, fmt.Errorf("pre_tokenizer: missing (a ByteLevel step is required): %w", errUnsupported)
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, false, fmt.Errorf("pre_tokenizer: %w", err)
	}
	steps := []component{c}
	if c.Type == "Sequence" {
		steps = c.Pretokenizers
	}
	var chain chainSplitter
	byteLevel := false
	for _, st := range steps {
		switch st.Type {
		case "Split":
			if st.Invert || st.Behavior != "Isolated" || st.Pattern == nil {
				return nil, false, fmt.Errorf("pre_tokenizer Split (behavior %q, invert %v): %w", st.Behavior, st.Invert, errUnsupported)
			}
			var pat string
			switch {
			case st.Pattern.Regex != nil:
				pat = *st.Pattern.Regex
			case st.Pattern.String != nil:
				pat = regexp2.Escape(*st.Pattern.String)
			default:
				return nil, false, fmt.Errorf("pre_tokenizer Split: empty pattern")
			}
			if pat == qwen2Pattern {
				chain = append(chain, qwen2Splitter{})
				continue
			}
			rs, err := newRegexSplitter(pat)
			if err != nil {
				return nil, false, fmt.Errorf("pre_tokenizer: %w", err)
			}
			chain = append(chain, rs)
		case "ByteLevel":
			if st.AddPrefixSpace {
				return nil, false, fmt.Errorf("pre_tokenizer ByteLevel add_prefix_space: %w", errUnsupported)
			}
			byteLevel = true
			if st.UseRegex == nil || *st.UseRegex {
				rs, err := newRegexSplitter(gpt2Pattern)
				if err != nil {
					return nil, false, err
				}
				chain = append(chain, rs)
			}
		default:
			return nil, false, fmt.Errorf("pre_tokenizer %q: %w", st.Type, errUnsupported)
		}
	}
	if !byteLevel {
		return nil, false, fmt.Errorf("pre_tokenizer without ByteLevel: %w", errUnsupported)
	}
	if len(chain) == 1 {
		_, q := chain[0].(qwen2Splitter)
		return chain[0], q, nil
	}
	return chain, false, nil
}

// parseMerges reads merges written either as ["a b", ...] or as
// [["a", "b"], ...].
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err == nil {
		return pairs, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return nil, fmt.Errorf("merges: neither [[a, b]] nor [\"a b\"]: %w", err)
	}
	pairs = make([][2]string, len(lines))
	for i, l := range lines {
		parts := strings.Split(l, " ")
		if len(parts) != 2 {
			return nil, fmt.Errorf("merges[%d] %q: want two space-separated tokens", i, l)
		}
		pairs[i] = [2]string{parts[0], parts[1]}
	}
	return pairs, nil
}
