package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"triage/search/live"
)

// searchProgress shows a progress bar on a terminal, and one structured log
// line per finished search otherwise.
type searchProgress struct {
	bar   *progressbar.ProgressBar
	total int
	done  int
}

func newSearchProgress(tty bool, total int) *searchProgress {
	p := &searchProgress{total: total}
	if tty {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetDescription("searches"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		_ = p.bar.RenderBlank()
	}
	return p
}

func (p *searchProgress) rootDone(r live.RootResult) {
	p.done++
	if p.bar != nil {
		_ = p.bar.Add(1)
		return
	}
	slog.Info("search", "method", r.Method, "task", r.TaskID, "root", r.Root, "solved", r.Solved, "expansions", r.Expansions,
		"output_tokens", r.OutputTokens, "wall_s", fmt.Sprintf("%.1f", r.WallSeconds), "done", p.done, "of", p.total)
}

func (p *searchProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
