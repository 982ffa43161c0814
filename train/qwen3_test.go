package train

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"triage/model"
)

// tinyBase is the 2-layer, 64-wide Qwen3 of the transformers parity fixture.
const tinyBase = "../model/testdata/qwen3-parity/qwen3-tiny"

// byteTok maps bytes to token ids below the tiny model's vocabulary.
type byteTok struct{}

func (byteTok) Encode(s string) []int32 {
	ids := make([]int32, len(s))
	for i := 0; i < len(s); i++ {
		ids[i] = int32(s[i]) % 512
	}
	return ids
}

func snapshot(t *testing.T, c *mlctx.Context) map[string][]float32 {
	t.Helper()
	out := map[string][]float32{}
	c.EnumerateVariables(func(v *mlctx.Variable) {
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		f, err := tensors.CopyFlatData[float32](val)
		if err != nil {
			return // non-float state (step counters)
		}
		out[v.Scope()+"/"+v.Name()] = f
	})
	return out
}

func changed(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return true
		}
	}
	return false
}

// qwen3Options trains the tiny Qwen3 for a few steps with short caps.
func qwen3Options() Options {
	o := DefaultOptions()
	o.Arch = filepath.Join(tinyBase, "config.json")
	o.Batch, o.Steps, o.ValEvery, o.LR, o.HeadHidden, o.MaxDepth = 4, 2, 0, 1e-2, 16, 2
	o.Limits = model.Limits{Feedback: 16, Diagnosis: 16, Edit: 16}
	return o
}

// TestLoRAFrozenBase trains with a frozen pretrained decoder (--base):
// only LoRA adapters and the head may change, and the checkpoint holds a
// PEFT adapter that loads onto the base.
func TestLoRAFrozenBase(t *testing.T) {
	var b *model.Bundle
	var before map[string][]float32
	o := qwen3Options()
	o.Base = tinyBase
	env := tinyEnv(t, synthTrees(8, 4, 3, 2, 9), t.TempDir())
	env.BuildQwen3 = func(o Options, _ Stats) (*model.Bundle, error) {
		lora := model.DefaultLoRA()
		m, err := model.Load(tinyBase, model.Options{Bins: o.MaxDepth + 1, HeadHidden: o.HeadHidden, LoRA: &lora, Seed: 1})
		if err != nil {
			return nil, err
		}
		b = model.NewQwen3Bundle(m, byteTok{}, o.Limits, o.Inputs)
		b.Meta.Base = &model.BaseRef{Path: tinyBase}
		return b, nil
	}
	// Snapshot after the variables exist: run the model once.
	env.Progress = func(p Progress) {
		if before == nil {
			t.Fatal("no snapshot before the first step")
		}
	}
	env.BuildQwen3 = wrapSnapshot(t, env.BuildQwen3, &before)
	if _, err := Train(context.Background(), o, env); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, b.Ctx)
	var lora, head int
	for k, v := range before {
		w, ok := after[k]
		if !ok {
			continue
		}
		moved := changed(v, w)
		switch {
		case strings.Contains(k, "lora_"):
			if moved {
				lora++
			}
		case strings.HasPrefix(k, "/head"):
			if moved {
				head++
			}
		case strings.HasPrefix(k, "/model"):
			if moved {
				t.Errorf("frozen base weight %s changed", k)
			}
		}
	}
	if lora == 0 || head == 0 {
		t.Errorf("%d LoRA and %d head variables changed; want both > 0", lora, head)
	}
	for _, f := range []string{model.AdapterConfigFile, model.AdapterWeightsFile, model.HeadFile, model.CheckpointFile} {
		if _, err := os.Stat(filepath.Join(env.Out, f)); err != nil {
			t.Error(err)
		}
	}
	m, err := model.Load(tinyBase, model.Options{Bins: 3, HeadHidden: 16})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadAdapter(env.Out); err != nil {
		t.Errorf("the checkpoint's adapter does not load onto its base: %v", err)
	}
}

// wrapSnapshot runs the model once on a dummy group after building it, so
// every variable exists, and records their values.
func wrapSnapshot(t *testing.T, build func(Options, Stats) (*model.Bundle, error), into *map[string][]float32) func(Options, Stats) (*model.Bundle, error) {
	return func(o Options, st Stats) (*model.Bundle, error) {
		b, err := build(o, st)
		if err != nil {
			return nil, err
		}
		if err := model.SetFeatureStats(b.Ctx, st.FeatureMean, st.FeatureStd); err != nil {
			return nil, err
		}
		sc, err := b.Scorer(testBackend(t), 4)
		if err != nil {
			return nil, err
		}
		defer sc.Close()
		g := GroupsOfTree(synthTrees(1, 1, 3, o.MaxDepth, 1)[0])[0]
		if _, err := sc.Score(context.Background(), g.Edges); err != nil {
			return nil, err
		}
		*into = snapshot(t, b.Ctx)
		return b, nil
	}
}

// TestFullTrainingWithoutBase trains a Qwen3 from random initialization:
// every decoder weight is trainable and changes.
func TestFullTrainingWithoutBase(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a Qwen3 decoder")
	}
	var b *model.Bundle
	var before map[string][]float32
	o := qwen3Options()
	env := tinyEnv(t, synthTrees(8, 4, 3, 2, 9), t.TempDir())
	build := func(o Options, _ Stats) (*model.Bundle, error) {
		cfg, err := model.LoadConfig(o.Arch)
		if err != nil {
			return nil, err
		}
		m, err := model.New(cfg, model.Options{Bins: o.MaxDepth + 1, HeadHidden: o.HeadHidden, Seed: 1})
		if err != nil {
			return nil, err
		}
		m.Context().SetParam(model.ParamTrainBase, true)
		b = model.NewQwen3Bundle(m, byteTok{}, o.Limits, o.Inputs)
		return b, nil
	}
	env.BuildQwen3 = wrapSnapshot(t, build, &before)
	if _, err := Train(context.Background(), o, env); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, b.Ctx)
	for k, v := range before {
		if strings.HasPrefix(k, "/model/layers") && strings.HasSuffix(k, "q_proj/weight") && !changed(v, after[k]) {
			t.Errorf("decoder weight %s did not train", k)
		}
	}
}
