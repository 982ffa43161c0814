package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-analyze/charts"
)

// writePlot draws the training loss (mean over the steps since the last
// validation, left axis) and the validation E[T] (right axis) at every
// validation step, as an SVG.
func writePlot(path string, hist []Record) error {
	var labels []string
	var loss, et []float64
	sum, n := 0.0, 0
	for _, r := range hist {
		sum += r.Loss
		n++
		if r.Val == nil {
			continue
		}
		labels = append(labels, strconv.Itoa(r.Step))
		loss = append(loss, sum/float64(n))
		et = append(et, r.Val.ET)
		sum, n = 0, 0
	}
	if len(labels) == 0 {
		return errors.New("plot: no validation step")
	}
	if len(labels) == 1 { // one point draws no line: repeat it
		labels = append(labels, labels[0])
		loss = append(loss, loss[0])
		et = append(et, et[0])
	}
	sl := charts.NewSeriesListLine([][]float64{loss, et})
	sl[0].Name, sl[1].Name = "train loss (mean since last validation)", "validation E[T]"
	sl[1].YAxisIndex = 1
	opt := charts.NewLineChartOptionWithSeries(sl)
	opt.Title = charts.TitleOption{Text: "Training: survival loss and validation E[T] by step"}
	opt.XAxis.Labels = labels
	opt.Legend = charts.LegendOption{SeriesNames: []string{sl[0].Name, sl[1].Name}, Offset: charts.OffsetRight}
	opt.YAxis = []charts.YAxisOption{{}, {}}
	p := charts.NewPainter(charts.PainterOptions{OutputFormat: charts.ChartOutputSVG, Width: 960, Height: 480})
	if err := p.LineChart(opt); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	svg, err := p.Bytes()
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	tmp := filepath.Join(filepath.Dir(path), ".plot.svg.tmp")
	if err := os.WriteFile(tmp, svg, 0o644); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return os.Rename(tmp, path)
}
