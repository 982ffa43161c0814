package eval_test

import (
	"context"
	"fmt"
	"log"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/policy"
	"triage/search/eval"
)

// Evaluate streams one split of a corpus: the reader decodes only what the
// policies read (no text for the baselines; the scorer's text when the
// learned policy is among them), and the trees are replayed and dropped.
func ExampleEvaluate() {
	ctx := context.Background()
	var pols []eval.Policy
	for _, name := range policy.Baselines {
		p, err := policy.New(name, nil)
		if err != nil {
			log.Fatal(err)
		}
		pols = append(pols, eval.Policy{Policy: p})
	}
	src, err := shard.OpenTrees([]string{"out/demo/corpus"},
		shard.ReadOptions{Split: corpus.SplitVal, Columns: eval.ColumnsFor(pols)})
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	res, err := eval.Evaluate(ctx, src, pols, eval.Options{Seeds: 10})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Policies {
		fmt.Printf("%s E[T] = %.2f ± %.2f\n", p.Name, p.Summary.ET, p.Summary.ETSE)
	}
}
