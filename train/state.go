package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"triage/model"
)

// Files of the resumable state (in <out>/last).
const (
	stateFile     = "state.json"
	optimizerFile = "optimizer.safetensors"
)

// trainingRecord is the "training" block of checkpoint.json.
type trainingRecord struct {
	Options  Options           `json:"options"`
	Sources  SourceRecord      `json:"sources"`
	Stats    Stats             `json:"stats"`
	Step     int               `json:"step"`
	BestStep int               `json:"best_step"`
	Best     *Validation       `json:"best,omitempty"`
	History  []Record          `json:"history,omitempty"`
	Seconds  float64           `json:"seconds,omitempty"`
	Command  string            `json:"command,omitempty"`
	Test     *Validation       `json:"test,omitempty"`
	Extra    map[string]any    `json:"extra,omitempty"`
	Versions map[string]string `json:"versions,omitempty"`
}

func setTraining(b *model.Bundle, rec trainingRecord) {
	raw, _ := json.Marshal(rec)
	b.Meta.Training = raw
}

// optimizerVariables returns every variable that is not part of the model
// (Adam moments, step counters) by dotted key.
func optimizerVariables(c *mlctx.Context) (map[string]*tensors.Tensor, error) {
	out := map[string]*tensors.Tensor{}
	var err error
	c.EnumerateVariables(func(v *mlctx.Variable) {
		if err != nil {
			return
		}
		scope := strings.Trim(v.Scope(), mlctx.ScopeSeparator)
		top, _, _ := strings.Cut(scope, mlctx.ScopeSeparator)
		switch top {
		case model.BagScope, model.HeadScope, model.BaseScope:
			return
		}
		key := strings.ReplaceAll(scope, mlctx.ScopeSeparator, ".")
		if key != "" {
			key += "."
		}
		key += v.Name()
		t, e := v.Value()
		if e != nil {
			err = fmt.Errorf("variable %s: %w", key, e)
			return
		}
		out[key] = t
	})
	return out, err
}

// writeState saves the model, the optimizer's variables and the data
// position so --resume continues exactly: everything goes to dir+".new"
// first, then replaces dir (the previous state stays readable as
// dir+".old" until the new one is in place).
func writeState(dir string, b *model.Bundle, s *state, env Env, run *Run) error {
	tmp, old := dir+".new", dir+".old"
	_ = os.RemoveAll(tmp)
	setTraining(b, trainingRecord{Options: s.Options, Sources: env.Sources, Stats: s.Stats, Step: s.Step,
		BestStep: s.BestStep, History: nil, Versions: env.Versions})
	if err := b.Save(tmp); err != nil {
		return fmt.Errorf("save training state: %w", err)
	}
	opt, err := optimizerVariables(b.Ctx)
	if err != nil {
		return fmt.Errorf("save training state: %w", err)
	}
	if err := model.WriteSafetensorsFile(filepath.Join(tmp, optimizerFile), opt, nil); err != nil {
		return fmt.Errorf("save training state: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("save training state: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, stateFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save training state: %w", err)
	}
	_ = os.RemoveAll(old)
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("save training state: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("save training state: %w", err)
	}
	_ = os.RemoveAll(old)
	return nil
}

// readState reads the resumable state of dir (or of dir+".old" when a
// crash came between the two renames of writeState).
func readState(dir string) (*state, error) {
	if _, err := os.Stat(filepath.Join(dir, stateFile)); err != nil {
		if _, e2 := os.Stat(filepath.Join(dir+".old", stateFile)); e2 == nil {
			_ = os.RemoveAll(dir)
			if err := os.Rename(dir+".old", dir); err != nil {
				return nil, err
			}
		} else {
			return nil, fmt.Errorf("no interrupted run in %s: %w", filepath.Dir(dir), err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return nil, err
	}
	var s state
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", stateFile, err)
	}
	return &s, nil
}

// loadState restores the optimizer's variables into c.
func loadState(dir string, c *mlctx.Context) error {
	st, err := model.OpenSafetensors(filepath.Join(dir, optimizerFile))
	if err != nil {
		return err
	}
	defer st.Close()
	for _, name := range st.Names() {
		t, err := st.Tensor(name)
		if err != nil {
			return err
		}
		if err := model.SetVariable(c, name, t, false); err != nil {
			return err
		}
	}
	return nil
}

// saveBest writes the current model as the best checkpoint in env.Out.
func saveBest(b *model.Bundle, env Env, run *Run, o Options, st Stats) error {
	best := run.History
	v := Validation{}
	if len(best) > 0 && best[len(best)-1].Val != nil {
		v = *best[len(best)-1].Val
	}
	setTraining(b, trainingRecord{Options: o, Sources: env.Sources, Stats: st, Step: run.BestStep,
		BestStep: run.BestStep, Best: &v, Versions: env.Versions})
	b.Meta.Versions = env.Versions
	if err := b.Save(env.Out); err != nil {
		return fmt.Errorf("save best checkpoint: %w", err)
	}
	return nil
}

// finishBest adds the whole run's history to the best checkpoint's record.
func finishBest(out string, run *Run) error {
	path := filepath.Join(out, model.CheckpointFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("finish checkpoint: %w", err)
	}
	var meta model.Meta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return fmt.Errorf("finish checkpoint: %w", err)
	}
	var rec trainingRecord
	if len(meta.Training) > 0 {
		if err := json.Unmarshal(meta.Training, &rec); err != nil {
			return fmt.Errorf("finish checkpoint: %w", err)
		}
	}
	rec.History, rec.Seconds, rec.Best = run.History, run.Seconds, run.Best
	rec.BestStep, rec.Step, rec.Command, rec.Test = run.BestStep, run.Steps, run.Command, run.Test
	meta.Training, _ = json.Marshal(rec)
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeLog writes the metrics log as JSON lines.
func writeLog(out string, hist []Record) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for i := range hist {
		if err := enc.Encode(&hist[i]); err != nil {
			return err
		}
	}
	tmp := filepath.Join(out, ".metrics.jsonl.tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("metrics log: %w", err)
	}
	return os.Rename(tmp, filepath.Join(out, "metrics.jsonl"))
}
