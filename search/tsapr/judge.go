package tsapr

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"triage/search/proposer/openai"
)

// JudgeMode chooses how a patch that fails some test is rewarded.
type JudgeMode string

// Judge modes.
const (
	// JudgeTests (Test-as-Judge) rewards a patch with its test pass rate.
	JudgeTests JudgeMode = "tests"
	// JudgeLLM (LLM-as-Judge) asks the model to score the patch 0–100.
	JudgeLLM JudgeMode = "llm"
	// JudgeAuto picks JudgeLLM for tasks with fewer than Options.MinTests
	// tests and JudgeTests otherwise, as the paper does.
	JudgeAuto JudgeMode = "auto"
)

// ParseJudgeMode parses "tests", "llm" or "auto".
func ParseJudgeMode(s string) (JudgeMode, error) {
	switch m := JudgeMode(s); m {
	case JudgeTests, JudgeLLM, JudgeAuto:
		return m, nil
	}
	return "", fmt.Errorf("judge %q: want llm, tests or auto", s)
}

// judgement is the LLM judge's verdict on one patch.
type judgement struct {
	// Scores are the samples' scores as given (0–100 when the model obeys).
	Scores []float64
	// Failed counts samples whose reply held no score even after one retry.
	Failed int
	// Reward is the mean of clip(score/100, 0, 1) over Scores; 0 when every
	// sample failed.
	Reward float64
	// Raw keeps the replies of a judgement in which every sample failed.
	Raw   string
	Usage openai.Usage
}

// judge asks for opts.Samples scores of one patch and averages them. A reply
// without a score is asked again once; if the retry has none either, the
// sample is a failed one. Servers that ignore n (llama.cpp, Ollama) return
// one choice per call: the missing samples are then asked for again, so a
// judgement always has Samples replies. Errors are for cancellation and
// server faults that outlast the client's retries.
func (s *env) judge(ctx context.Context, d PromptData) (judgement, error) {
	var j judgement
	prompt, err := render(s.prompts.judge, d)
	if err != nil {
		return j, err
	}
	msgs := []openai.Message{{Role: openai.RoleSystem, Content: s.prompts.System}, {Role: openai.RoleUser, Content: prompt}}
	replies, err := s.sample(ctx, msgs, s.opts.Samples, &j.Usage)
	if err != nil {
		return j, err
	}
	var retry int
	var raws []string
	for _, r := range replies {
		if v, ok := ParseScore(r); ok {
			j.Scores = append(j.Scores, v)
		} else {
			retry++
			raws = append(raws, r)
		}
	}
	if retry > 0 {
		again, err := s.sample(ctx, msgs, retry, &j.Usage)
		if err != nil {
			return j, err
		}
		for _, r := range again {
			if v, ok := ParseScore(r); ok {
				j.Scores = append(j.Scores, v)
			} else {
				j.Failed++
				raws = append(raws, r)
			}
		}
		j.Failed += retry - len(again)
	}
	for _, v := range j.Scores {
		j.Reward += clip01(v / 100)
	}
	if len(j.Scores) > 0 {
		j.Reward /= float64(len(j.Scores))
	} else {
		j.Raw = strings.Join(raws, "\n---\n")
	}
	return j, nil
}

// sample gathers n replies to msgs, asking again for the ones a server did
// not return (at most n calls).
func (s *env) sample(ctx context.Context, msgs []openai.Message, n int, u *openai.Usage) ([]string, error) {
	var out []string
	for calls := 0; len(out) < n && calls < n; calls++ {
		rep, err := s.chat.Complete(ctx, openai.Request{Model: s.opts.JudgeModel, Messages: msgs, N: n - len(out), Temperature: &s.opts.Temperature})
		if err != nil {
			return out, fmt.Errorf("judge: %w", err)
		}
		u.Add(rep.Usage)
		s.usage[callJudge] = addUsage(s.usage[callJudge], rep.Usage)
		out = append(out, rep.Contents...)
	}
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

func clip01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

var (
	// "Score: 70", "**Score**: 70/100", "score of 70", `"score": 70`.
	scoreRE = regexp.MustCompile(`(?i)\bscore\b[^0-9\n-]{0,16}(-?\d{1,6}(?:\.\d+)?)`)
	// "70/100" or "70 out of 100".
	outOfRE = regexp.MustCompile(`(?i)(-?\d{1,6}(?:\.\d+)?)\s*(?:/|out of)\s*100\b`)
	// A reply that is nothing but a number, perhaps emphasised.
	bareRE = regexp.MustCompile(`^[\s*_` + "`" + `]*(-?\d{1,6}(?:\.\d+)?)[\s*_.` + "`" + `]*$`)
)

// ParseScore reads a judge's score from its reply: the last "Score: N" (in
// any case, with markdown or JSON around it), else the last "N/100", else a
// reply that is only a number. ok is false when the reply holds none of
// these; a stray number in prose is not taken for a score.
func ParseScore(reply string) (score float64, ok bool) {
	for _, re := range []*regexp.Regexp{scoreRE, outOfRE, bareRE} {
		if m := re.FindAllStringSubmatch(reply, -1); len(m) > 0 {
			v, err := strconv.ParseFloat(m[len(m)-1][1], 64)
			if err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
				return v, true
			}
		}
	}
	return 0, false
}
