package codeprior

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrOptions reports build options that cannot be used.
var ErrOptions = errors.New("code prior options")

// SourceDir is a folder of Python code to fit the prior on, with its
// provenance (Build fills in the counts of the SourceInfo).
type SourceDir struct {
	Dir string `json:"dir"`
	SourceInfo
}

// Reference is one task's reference program, checked against every
// source file.
type Reference struct {
	TaskSet string
	TaskID  string
	Code    string
}

// BuildOptions are the inputs of Build. The defaults are those of the
// shipped prior.
type BuildOptions struct {
	Sources []SourceDir
	// References are the programs no source file may share a window
	// with, grouped by TaskSet (at most 64 sets).
	References []Reference
	// Order is the n-gram order (default DefaultOrder, at most 10). On the
	// shipped corpus, held-out perplexity falls up to order 8 at least, and
	// the separation of fixes on the tuning trees grew up to 6 and not
	// beyond (docs/prior.md).
	Order int
	// MinCount[n-1] is the adjusted count an n-gram of order n ≥ 2 needs to
	// be kept; nil picks the first of cutoffSchedule's that fits Budget.
	MinCount []int
	// Budget bounds the artifact's size in bytes (default 8 MiB).
	Budget int
	// HeldOutEvery holds one file in this many (by content hash) out of
	// the counts to measure perplexity (default 50).
	HeldOutEvery int
	// MaxFileBytes drops larger files (default 512 KiB): generated code
	// and data.
	MaxFileBytes int
	// MaxLiteralShare drops files of 50 symbols or more (punctuation and
	// layout aside) whose symbols are literals in a larger share than this
	// (default 0.5): tables of data.
	MaxLiteralShare float64
}

// Defaults of BuildOptions.
const (
	DefaultOrder        = 6
	DefaultBudget       = 8 << 20
	DefaultHeldOutEvery = 50
	defaultMaxFile      = 512 << 10
	defaultMaxLiteral   = 0.5
)

// cutoffs are the count cutoffs tried, smallest first, when MinCount is
// nil (cutoffSchedule).
var cutoffs = []int{2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 96, 128}

// cutoffSchedule returns the count cutoffs tried in turn for a model of the
// given order: orders 1 and 2 keep every n-gram (they are small), orders 3
// and up need c and the top order c+1, for c in cutoffs. (On the tuning
// trees, cutoffs of 2 from order 3 up separated fixes as well as none, in
// half the bytes.)
func cutoffSchedule(order int) [][]int {
	var out [][]int
	for _, c := range cutoffs {
		mc := make([]int, order)
		for n := range mc {
			switch {
			case n < 2:
				mc[n] = 1
			case n == order-1 && order >= 4:
				mc[n] = c + 1
			default:
				mc[n] = c
			}
		}
		out = append(out, mc)
	}
	return out
}

func (o *BuildOptions) setDefaults() error {
	if o.Order == 0 {
		o.Order = DefaultOrder
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.HeldOutEvery == 0 {
		o.HeldOutEvery = DefaultHeldOutEvery
	}
	if o.MaxFileBytes == 0 {
		o.MaxFileBytes = defaultMaxFile
	}
	if o.MaxLiteralShare == 0 {
		o.MaxLiteralShare = defaultMaxLiteral
	}
	switch {
	case o.Order < 1 || o.Order > maxOrder:
		return fmt.Errorf("order %d, want 1..%d", o.Order, maxOrder)
	case o.MinCount != nil && len(o.MinCount) != o.Order:
		return fmt.Errorf("%d count cutoffs for order %d", len(o.MinCount), o.Order)
	case o.HeldOutEvery < 2:
		return fmt.Errorf("held out every %d files, want 2 or more", o.HeldOutEvery)
	case len(o.Sources) == 0:
		return errors.New("no source folder")
	}
	labels := map[string]bool{}
	for _, s := range o.Sources {
		if s.Label == "" || labels[s.Label] {
			return fmt.Errorf("source %q: labels must be unique and non-empty", s.Label)
		}
		labels[s.Label] = true
		if st, err := os.Stat(s.Dir); err != nil || !st.IsDir() {
			return fmt.Errorf("source %s: %q is not a folder", s.Label, s.Dir)
		}
	}
	return nil
}

// refIndex holds the windows of the task references.
type refIndex struct {
	sets    []TaskSetInfo
	sets64  map[uint64]uint64 // window → bit mask of task sets
	windows [][]uint64        // each reference's windows
	setOf   []int             // each reference's task set
}

func newRefIndex(refs []Reference) (*refIndex, error) {
	ix := &refIndex{sets64: map[uint64]uint64{}}
	setIdx := map[string]int{}
	var hashes []hash.Hash
	perSet := []map[uint64]bool{}
	for _, r := range refs {
		i, ok := setIdx[r.TaskSet]
		if !ok {
			if len(ix.sets) == 64 {
				return nil, errors.New("more than 64 task sets")
			}
			i = len(ix.sets)
			setIdx[r.TaskSet] = i
			ix.sets = append(ix.sets, TaskSetInfo{Name: r.TaskSet})
			hashes = append(hashes, sha256.New())
			perSet = append(perSet, map[uint64]bool{})
		}
		ix.sets[i].Tasks++
		hashes[i].Write([]byte(r.Code))
		hashes[i].Write([]byte{0})
		w := Windows(r.Code)
		if len(w) == 0 {
			ix.sets[i].NoWindow++
		}
		for _, h := range w {
			ix.sets64[h] |= 1 << i
			perSet[i][h] = true
		}
		ix.windows = append(ix.windows, w)
		ix.setOf = append(ix.setOf, i)
	}
	for i := range ix.sets {
		ix.sets[i].SHA256 = hex.EncodeToString(hashes[i].Sum(nil))
		ix.sets[i].Windows = len(perSet[i])
	}
	return ix, nil
}

// pyFile is one source file as Build read it.
type pyFile struct {
	rel  string
	data []byte
	sum  [sha256.Size]byte
}

// readSource lists the regular .py files under dir in lexical order (links
// are not followed) and the sha256 of their list.
func readSource(dir string) ([]pyFile, string, error) {
	var files []pyFile
	list := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(path, ".py") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		f := pyFile{rel: rel, data: data, sum: sha256.Sum256(data)}
		fmt.Fprintf(list, "%s\t%x\n", rel, f.sum)
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("read source %s: %w", dir, err)
	}
	return files, hex.EncodeToString(list.Sum(nil)), nil
}

// isLiteral reports whether a symbol is a literal kind.
func isLiteral(s string) bool {
	switch s {
	case "0", "1", "2", "<int>", "<float>", "<imag>", "<str>", "<str0>", "<str1>", "<str3>", "<fstr>", "<bytes>":
		return true
	}
	return false
}

// isLayout reports whether a symbol is punctuation that separates data or
// the layout of lines.
func isLayout(s string) bool {
	switch s {
	case ",", ":", "(", ")", "[", "]", "{", "}", ";", symNL, symIndent, symDedent, symBOS, symEOS:
		return true
	}
	return false
}

// literalShare is the share of literals among the symbols that are not
// layout: about a quarter in code, nearly all of a table of data.
func literalShare(v *vocab, syms []sym) (share float64, words int) {
	lits := 0
	for _, s := range syms {
		switch t := v.syms[s.id]; {
		case isLiteral(t):
			lits++
			words++
		case !isLayout(t):
			words++
		}
	}
	if words == 0 {
		return 0, 0
	}
	return float64(lits) / float64(words), words
}

// Build reads the sources, drops the files that share a normalised window
// of WindowLines non-trivial lines with any reference (and exact copies,
// data files and very large files), holds one file in HeldOutEvery out,
// fits the model on the rest, and returns the artifact with the overlap
// report and the held-out perplexities in its header. The same inputs give
// the same bytes.
func Build(opts BuildOptions, log *slog.Logger) ([]byte, *Header, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := opts.setDefaults(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	ix, err := newRefIndex(opts.References)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	v, err := newVocab(Vocabulary())
	if err != nil {
		return nil, nil, err
	}
	h := &Header{Format: Format, Order: opts.Order, Vocab: v.syms, NamesPython: namesPython,
		HeldOut: fmt.Sprintf("files whose content sha256, as a big-endian uint64 of its first 8 bytes, is 0 mod %d", opts.HeldOutEvery)}
	train := &sequences{}
	var heldOut [][]uint16
	seen := map[[sha256.Size]byte]bool{}
	matched := map[uint64]bool{}
	for _, src := range opts.Sources {
		info, held, err := readInto(src, &opts, ix, v, seen, matched, train)
		if err != nil {
			return nil, nil, err
		}
		heldOut = append(heldOut, held...)
		h.Sources = append(h.Sources, info)
		h.TrainFiles += info.Train
		h.TrainTokens += info.TrainTokens
		log.Info("code prior source", "label", info.Label, "files", info.Files, "train", info.Train,
			"overlap", info.DroppedOverlap, "tokens", info.TrainTokens)
	}
	h.TaskSets = ix.report(h.Sources, matched)
	// Ids by frequency: the artifact writes small ids in one byte.
	v, err = byFrequency(v, train, heldOut)
	if err != nil {
		return nil, nil, err
	}
	h.Vocab = v.syms
	counts := countNGrams(train, opts.Order, len(v.syms), v.bos)
	model, err := fitToBudget(h, counts, &opts, v, log)
	if err != nil {
		return nil, nil, err
	}
	h.Eval = append(h.Eval, perplexity("held-out", model, heldOut))
	for i, set := range ix.sets {
		var seqs [][]uint16
		for j, r := range opts.References {
			if ix.setOf[j] == i {
				seqs = append(seqs, idsOf(v.symbols(r.Code)))
			}
		}
		h.Eval = append(h.Eval, perplexity("references:"+set.Name, model, seqs))
	}
	data, err := encode(h, model)
	if err != nil {
		return nil, nil, err
	}
	return data, h, nil
}

// readInto reads one source, sorts its files into train (appended to
// train), held out (returned) and dropped, and returns its report.
func readInto(src SourceDir, opts *BuildOptions, ix *refIndex, v *vocab, seen map[[sha256.Size]byte]bool,
	matched map[uint64]bool, train *sequences) (SourceInfo, [][]uint16, error) {
	info := src.SourceInfo
	files, listSum, err := readSource(src.Dir)
	if err != nil {
		return info, nil, err
	}
	info.Files, info.FilesSHA256 = len(files), listSum
	overlap := make([]SourceOverlap, len(ix.sets))
	overlapWin := make([]map[uint64]bool, len(ix.sets))
	for i := range ix.sets {
		overlap[i].TaskSet = ix.sets[i].Name
		overlapWin[i] = map[uint64]bool{}
	}
	var held [][]uint16
	for _, f := range files {
		if len(f.data) > opts.MaxFileBytes {
			info.DroppedLarge++
			continue
		}
		if seen[f.sum] {
			info.DroppedDuplicate++
			continue
		}
		seen[f.sum] = true
		code := string(f.data)
		var hit uint64
		for _, w := range Windows(code) {
			if m := ix.sets64[w]; m != 0 {
				hit |= m
				matched[w] = true
				for i := range ix.sets {
					if m&(1<<i) != 0 {
						overlapWin[i][w] = true
					}
				}
			}
		}
		if hit != 0 {
			info.DroppedOverlap++
			for i := range ix.sets {
				if hit&(1<<i) != 0 {
					overlap[i].Files++
				}
			}
			continue
		}
		syms := v.symbols(code)
		if share, words := literalShare(v, syms); words >= 50 && share > opts.MaxLiteralShare {
			info.DroppedData++
			continue
		}
		ids := idsOf(syms)
		if binary.BigEndian.Uint64(f.sum[:8])%uint64(opts.HeldOutEvery) == 0 {
			info.HeldOut++
			held = append(held, ids)
			continue
		}
		info.Train++
		info.TrainTokens += int64(len(ids) - 1)
		train.add(ids)
	}
	for i := range overlap {
		overlap[i].Windows = len(overlapWin[i])
	}
	info.Overlap = overlap
	return info, held, nil
}

// report fills in the task sets' overlap figures.
func (ix *refIndex) report(sources []SourceInfo, matched map[uint64]bool) []TaskSetInfo {
	sets := append([]TaskSetInfo(nil), ix.sets...)
	perSet := make([]map[uint64]bool, len(sets))
	for i := range perSet {
		perSet[i] = map[uint64]bool{}
	}
	for j, ws := range ix.windows {
		hit := false
		for _, w := range ws {
			if matched[w] {
				hit = true
				perSet[ix.setOf[j]][w] = true
			}
		}
		if hit {
			sets[ix.setOf[j]].TasksMatched++
		}
	}
	for i := range sets {
		sets[i].WindowsMatched = len(perSet[i])
		for _, s := range sources {
			sets[i].FilesDropped += s.Overlap[i].Files
		}
	}
	return sets
}

// byFrequency returns the vocabulary with its symbols in decreasing order
// of their count in train (ties in v's order), and renumbers the symbols
// of train and heldOut to it.
func byFrequency(v *vocab, train *sequences, heldOut [][]uint16) (*vocab, error) {
	count := make([]int, len(v.syms))
	for _, id := range train.ids {
		count[id]++
	}
	order := make([]int, len(v.syms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return count[b] - count[a] })
	syms := make([]string, len(order))
	newID := make([]uint16, len(order))
	for i, old := range order {
		syms[i] = v.syms[old]
		newID[old] = uint16(i)
	}
	for i, id := range train.ids {
		train.ids[i] = newID[id]
	}
	for _, seq := range heldOut {
		for i, id := range seq {
			seq[i] = newID[id]
		}
	}
	return newVocab(syms)
}

func idsOf(syms []sym) []uint16 {
	ids := make([]uint16, len(syms))
	for i, s := range syms {
		ids[i] = s.id
	}
	return ids
}

// fitToBudget builds the model with opts.MinCount, or with the smallest
// uniform cutoff whose artifact fits opts.Budget, and records the choice in
// h. The model returned is the one the artifact decodes to.
func fitToBudget(h *Header, counts []ngrams, opts *BuildOptions, v *vocab, log *slog.Logger) (*lm, error) {
	tries := [][]int{opts.MinCount}
	if opts.MinCount == nil {
		tries = cutoffSchedule(opts.Order)
	}
	for _, mc := range tries {
		// Skip cutoffs whose entries alone (two bytes or more each) exceed
		// the budget before building them.
		keep := prune(counts, mc)
		est := 8 * len(v.syms)
		for n, k := range keep {
			for _, b := range k {
				if b {
					est += 2 + min(n, 1)
				}
			}
		}
		if est > opts.Budget {
			log.Info("code prior cutoff over budget", "min_count", mc, "estimate_bytes", est)
			continue
		}
		m, ds, err := buildLM(counts, mc, v.bos)
		if err != nil {
			return nil, err
		}
		h.MinCount, h.Discounts, h.Entries = mc, ds, m.entries()
		data, err := encode(h, m)
		if err != nil {
			return nil, err
		}
		log.Info("code prior fitted", "min_count", mc, "entries", h.Entries, "bytes", len(data))
		if len(data) > opts.Budget {
			continue
		}
		_, dm, err := decode(data)
		if err != nil {
			return nil, fmt.Errorf("code prior build: the artifact does not read back: %w", err)
		}
		return dm, nil
	}
	return nil, fmt.Errorf("code prior build: no cutoff fits %d bytes", opts.Budget)
}

// perplexity measures the model on programs of symbol ids.
func perplexity(set string, m *lm, seqs [][]uint16) Perplexity {
	p := Perplexity{Set: set, Files: len(seqs)}
	var sum, uni float64
	for _, s := range seqs {
		for i, lp := range m.logProbs(s) {
			if i == 0 {
				continue
			}
			sum += lp
			uni += float64(m.uni[s[i]])
			p.Tokens++
		}
	}
	if p.Tokens > 0 {
		p.PPL = math.Exp(-sum / float64(p.Tokens))
		p.UnigramPPL = math.Exp(-uni / float64(p.Tokens))
	}
	return p
}
