package filehost

import (
	"strconv"
	"testing"
)

func points(values ...int64) []chartPoint {
	out := make([]chartPoint, len(values))
	for i, v := range values {
		out[i] = chartPoint{Label: strconv.Itoa(i), Title: "t" + strconv.Itoa(i), Value: v}
	}
	return out
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("coordinate %q: %v", s, err)
	}
	return f
}

func TestColumnChartScalesToTheLargestValue(t *testing.T) {
	tests := []struct {
		name    string
		values  []int64
		heights []float64 // of each bar
		empty   bool
	}{
		{"largest fills the plot", []int64{1, 2, 4}, []float64{37, 74, 148}, false},
		{"all zero draws flat bars", []int64{0, 0}, []float64{0, 0}, true},
		{"one bar", []int64{7}, []float64{148}, false},
		{"a tiny value stays visible", []int64{1, 100000}, []float64{1, 148}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := columnChart(points(tt.values...), 600, 180, 0)
			if c.Empty != tt.empty || len(c.Bars) != len(tt.values) {
				t.Fatalf("empty %v, %d bars", c.Empty, len(c.Bars))
			}
			for i, b := range c.Bars {
				h, y := parse(t, b.H), parse(t, b.Y)
				if h != tt.heights[i] {
					t.Errorf("bar %d height %v, want %v", i, h, tt.heights[i])
				}
				if y+h != 162 { // every bar stands on the baseline
					t.Errorf("bar %d ends at %v", i, y+h)
				}
				if x, w := parse(t, b.X), parse(t, b.W); x < 0 || w <= 0 || x+w > 600 {
					t.Errorf("bar %d at %v width %v", i, x, w)
				}
			}
		})
	}
	if c := columnChart(nil, 600, 180, 0); !c.Empty || len(c.Bars) != 0 {
		t.Errorf("no points: %+v", c)
	}
	if c := columnChart(points(1, 2, 3, 4, 5, 6, 7, 8), 600, 180, 7); len(c.Texts) != 3 { // two labels and the maximum
		t.Errorf("%d texts with a label every 7 bars", len(c.Texts))
	}
}

func TestRowChartPutsLabelsBesideBars(t *testing.T) {
	c := rowChart(points(10, 5, 0), 600, func(n int64) string { return strconv.FormatInt(n, 10) + " B" })
	if c.Height != 78 || len(c.Bars) != 3 || len(c.Texts) != 6 {
		t.Fatalf("height %d, %d bars, %d texts", c.Height, len(c.Bars), len(c.Texts))
	}
	if w0, w1, w2 := parse(t, c.Bars[0].W), parse(t, c.Bars[1].W), parse(t, c.Bars[2].W); w0 != 390 || w1 != 195 || w2 != 0 {
		t.Errorf("widths %v %v %v", w0, w1, w2)
	}
	if c.Texts[1].Text != "10 B" || !c.Texts[0].End {
		t.Errorf("texts %+v", c.Texts[:2])
	}
	if empty := rowChart(nil, 600, nil); empty.Height <= 0 || !empty.Empty {
		t.Errorf("no rows: %+v", empty)
	}
}
