package filehost

import (
	"math"
	"strconv"
)

// chartPoint is one value of a chart, with what names it.
type chartPoint struct {
	Label string // under or beside the bar
	Title string // the bar's tooltip and accessible name
	Value int64
}

// chartBar is a bar as the SVG draws it; numbers are written out already,
// so the template only places them.
type chartBar struct {
	X, Y, W, H string
	Title      string
}

// chartText is a label placed in the SVG.
type chartText struct {
	X, Y, Text string
	End        bool // anchored at its end (right-aligned)
}

// chart is the geometry of one bar chart, in viewBox units.
type chart struct {
	Width, Height int
	Bars          []chartBar
	Texts         []chartText
	Points        []chartPoint // the same numbers, for the table beside it
	Empty         bool         // every value is zero
}

// columnChart draws points as vertical bars over width×height, scaled to
// the largest value, with every labelEvery-th label under its bar (0: all).
func columnChart(points []chartPoint, width, height, labelEvery int) chart {
	c := chart{Width: width, Height: height, Points: points}
	if len(points) == 0 {
		c.Empty = true
		return c
	}
	const bottom, top = 18, 14 // room for labels and the maximum
	maxV := maxValue(points)
	c.Empty = maxV == 0
	slot := float64(width) / float64(len(points))
	plot := float64(height - bottom - top)
	for i, p := range points {
		h := 0.0
		if maxV > 0 {
			h = plot * float64(p.Value) / float64(maxV)
		}
		if p.Value > 0 && h < 1 {
			h = 1 // a value is never invisible
		}
		x := float64(i)*slot + slot*0.1
		c.Bars = append(c.Bars, chartBar{X: num(x), Y: num(float64(height-bottom) - h), W: num(slot * 0.8), H: num(h), Title: p.Title})
		if labelEvery <= 0 || i%labelEvery == 0 {
			c.Texts = append(c.Texts, chartText{X: num(x), Y: num(float64(height) - 4), Text: p.Label})
		}
	}
	c.Texts = append(c.Texts, chartText{X: num(float64(width)), Y: "11", Text: "max " + strconv.FormatInt(maxV, 10), End: true})
	return c
}

// rowChart draws points as horizontal bars, one row each, labels on the
// left and values on the right.
func rowChart(points []chartPoint, width int, value func(int64) string) chart {
	const row, label, right = 26, 130, 80
	c := chart{Width: width, Height: max(row, row*len(points)), Points: points}
	maxV := maxValue(points)
	c.Empty = maxV == 0
	plot := float64(width - label - right)
	for i, p := range points {
		w := 0.0
		if maxV > 0 {
			w = plot * float64(p.Value) / float64(maxV)
		}
		if p.Value > 0 && w < 1 {
			w = 1
		}
		y := float64(i * row)
		c.Bars = append(c.Bars, chartBar{X: num(label), Y: num(y + 4), W: num(w), H: num(row - 8), Title: p.Title})
		c.Texts = append(c.Texts,
			chartText{X: num(label - 6), Y: num(y + 17), Text: p.Label, End: true},
			chartText{X: num(label + w + 6), Y: num(y + 17), Text: value(p.Value)})
	}
	return c
}

func maxValue(points []chartPoint) int64 {
	var m int64
	for _, p := range points {
		m = max(m, p.Value)
	}
	return m
}

// num writes a coordinate with one decimal at most.
func num(f float64) string {
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}
