package train

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"triage/model"
	"triage/model/tokenizer"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/schollz/progressbar/v3"
)

// ApplySets applies key=value pairs (train's --set) to o through its JSON
// form, so every key is a documented option field and values are
// type-checked.
func (o *Options) ApplySets(sets []string) error {
	if len(sets) == 0 {
		return nil
	}
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	allowed := map[string]bool{"bag.buckets": true, "bag.embed": true, "bag.hidden": true, "bag.max_parent_ids": true,
		"bag.max_edit_ids": true, "bag.ngram_order": true, "bag.ngram_bits": true, "head_hidden": true, "shuffle": true,
		"max_depth": true, "limits.feedback": true, "limits.diagnosis": true, "limits.edit": true}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !allowed[k] {
			return fmt.Errorf("%q: want key=value with key one of bag.buckets, bag.embed, bag.hidden, bag.max_parent_ids, bag.max_edit_ids, bag.ngram_order, bag.ngram_bits, head_hidden, shuffle, max_depth, limits.feedback, limits.diagnosis, limits.edit", kv)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s: %q is not an integer", k, v)
		}
		outer, inner, nested := strings.Cut(k, ".")
		if nested {
			sub, _ := m[outer].(map[string]any)
			if sub == nil {
				sub = map[string]any{}
			}
			sub[inner] = n
			m[outer] = sub
		} else {
			m[outer] = n
		}
	}
	raw, _ = json.Marshal(m)
	var out Options
	if err := json.Unmarshal(raw, &out); err != nil {
		return err
	}
	*o = out
	return o.Validate()
}

// BuildQwen3 makes the Qwen3 priority model of o: Qwen3-0.6B's shape or a
// config.json; with o.Base the pretrained decoder, frozen, plus LoRA.
func BuildQwen3(o Options, _ Stats) (*model.Bundle, error) {
	dt := dtypes.Float32
	if o.DType == "bf16" {
		dt = dtypes.BFloat16
	}
	lora := model.DefaultLoRA()
	opts := model.Options{DType: dt, Bins: o.MaxDepth + 1, HeadHidden: o.HeadHidden, LoRA: &lora, Seed: int64(o.Seed)}
	var m *model.Model
	var err error
	var base *model.BaseRef
	switch {
	case o.Base != "":
		if m, err = model.Load(o.Base, opts); err != nil {
			return nil, err
		}
		sum, err := fileDigest(filepath.Join(o.Base, "config.json"))
		if err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(o.Base)
		base = &model.BaseRef{Path: abs, ConfigSHA256: sum}
	default:
		cfg := model.Qwen3_0_6B()
		if o.Arch != "0.6b" {
			if cfg, err = model.LoadConfig(o.Arch); err != nil {
				return nil, err
			}
		}
		opts.LoRA = nil // no base: every weight trains, LoRA adds nothing
		if m, err = model.New(cfg, opts); err != nil {
			return nil, err
		}
		m.Context().SetParam(model.ParamTrainBase, true)
	}
	tok, err := tokenizer.Qwen3()
	if err != nil {
		return nil, err
	}
	b := model.NewQwen3Bundle(m, tok, o.Limits, o.Inputs)
	b.Meta.Base = base
	b.Meta.Tokenizer = &model.TokenizerRef{Name: "qwen3", SHA256: tokenizer.Qwen3SHA256}
	return b, nil
}

// fileDigest is the hex SHA-256 of a file.
func fileDigest(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}

// RecordSources names the corpus folders and hashes their manifests.
func RecordSources(dirs []string) (SourceRecord, error) {
	rec := SourceRecord{Manifests: map[string]string{}}
	h := sha256.New()
	for _, d := range dirs {
		// As given: a relative path stays relative, so a checkpoint made in
		// a checkout does not record the machine's folders.
		rec.Corpus = append(rec.Corpus, filepath.Clean(d))
		files, _ := filepath.Glob(filepath.Join(d, "manifest*.json"))
		sort.Strings(files)
		own := sha256.New()
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return rec, fmt.Errorf("read %s: %w", f, err)
			}
			h.Write(data)
			own.Write(data)
		}
		rec.Manifests[filepath.Clean(d)] = hex.EncodeToString(own.Sum(nil))
	}
	rec.ManifestHash = hex.EncodeToString(h.Sum(nil))
	return rec, nil
}

// Reporter shows training progress: a progress bar on a terminal, slog
// lines otherwise.
type Reporter struct {
	bar     *progressbar.ProgressBar
	lastLog time.Time
}

// NewReporter makes a Reporter; tty: draw the bar on stderr.
func NewReporter(tty bool) *Reporter {
	r := &Reporter{lastLog: time.Now()}
	if tty {
		r.bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetDescription("steps"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	return r
}

// Update shows one progress report (Env.Progress).
func (r *Reporter) Update(p Progress) {
	best := "-"
	if p.BestET >= 0 {
		best = fmt.Sprintf("%.2f", p.BestET)
	}
	if r.bar != nil {
		if r.bar.GetMax() != p.Total {
			r.bar.ChangeMax(p.Total)
		}
		rate := fmt.Sprintf("%.0f edges/s", p.EdgesPerSec)
		if p.TokensPerSec > 0 {
			rate = fmt.Sprintf("%.0f tok/s", p.TokensPerSec)
		}
		r.bar.Describe(fmt.Sprintf("loss %.4f, %s, best val E[T] %s", p.Loss, rate, best))
		_ = r.bar.Set(p.Step)
		return
	}
	if time.Since(r.lastLog) >= 10*time.Second || p.Val != nil || p.Step == p.Total {
		r.lastLog = time.Now()
		args := []any{"step", p.Step, "of", p.Total, "epoch", p.Epoch, "loss", fmt.Sprintf("%.4f", p.Loss),
			"edges_per_s", fmt.Sprintf("%.0f", p.EdgesPerSec), "eta", p.ETA.Round(time.Second).String(), "best_val_et", best}
		if p.TokensPerSec > 0 {
			args = append(args, "tokens_per_s", fmt.Sprintf("%.0f", p.TokensPerSec))
		}
		slog.Info("train progress", args...)
	}
}

// Finish clears the bar.
func (r *Reporter) Finish() {
	if r.bar != nil {
		_ = r.bar.Finish()
	}
}

// WriteSummary writes the one-line summary of a training run (and its
// recorded test figure) that `triage train` prints.
func WriteSummary(w io.Writer, run *Run) error {
	if _, err := fmt.Fprintf(w, "%s: %d steps in %s; best validation E[T] %.3f at step %d (%d val trees); %d training examples (%d edges) from %d trees with a fix\n",
		run.Out, run.Steps, time.Duration(run.Seconds*float64(time.Second)).Round(time.Second), run.Best.ET, run.BestStep,
		run.Best.Trees, run.Stats.Groups, run.Stats.Edges, run.Stats.TreesWithFix); err != nil {
		return err
	}
	if run.Test != nil {
		_, err := fmt.Fprintf(w, "test split (recorded, not used for any choice): E[T] %.3f over %d trees with a fix\n", run.Test.ET, run.Test.Trees)
		return err
	}
	return nil
}
