// Package experiment holds the experiments that train models and score
// them by replay: cross-validation by task (CrossValidate, `triage cv`),
// which trains one model per fold of tasks and replays it and every
// baseline on the held-out fold, and leave one dataset out
// (LeaveOneDatasetOut, `triage cv --lodo`), which holds out one task
// source in turn, trains on the others and tunes every baseline on their
// val splits. Their reports are eval's tables (search/eval/report), with
// the folds, the directions and the paired comparisons.
//
// Imports: train (the training it repeats), model, corpus, policy, the
// engine and search/eval with its report.
package experiment
