package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestPercentileMatchesMeasureTs(t *testing.T) {
	// 1..10: index = ceil(q·n) − 1, clamped to [0, n−1] (bench/lib/measure.ts).
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cases := []struct {
		sorted []float64
		q      float64
		want   float64
	}{
		{ten, 0.5, 5},   // ceil(5) − 1 = 4
		{ten, 0.9, 9},   // ceil(9) − 1 = 8
		{ten, 0.99, 10}, // ceil(9.9) − 1 = 9
		{ten, 0.51, 6},  // ceil(5.1) − 1 = 5
		{ten, 0, 1},     // −1 clamped to 0
		{ten, 1, 10},
		{ten, 1.5, 10}, // clamped to n − 1
		{[]float64{7}, 0.99, 7},
		{[]float64{1, 2}, 0.5, 1}, // not 2: ceil(1) − 1 = 0
		{[]float64{1, 2, 3}, 0.5, 2},
	}
	for _, c := range cases {
		if got := percentile(c.sorted, c.q); got != c.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", c.sorted, c.q, got, c.want)
		}
	}
	if got := percentile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("percentile(empty) = %v, want NaN", got)
	}
}

func TestPercentileOf1000(t *testing.T) {
	sorted := make([]float64, 1000)
	for i := range sorted {
		sorted[i] = float64(i + 1)
	}
	for q, want := range map[float64]float64{0.5: 500, 0.9: 900, 0.99: 990, 0.999: 999} {
		if got := percentile(sorted, q); got != want {
			t.Errorf("p%v of 1..1000 = %v, want %v", q*100, got, want)
		}
	}
}

func TestBuildReport(t *testing.T) {
	// 100 latencies 100, 99, …, 1 ms, unsorted on purpose.
	latencies := make([]float64, 100)
	for i := range latencies {
		latencies[i] = float64(100 - i)
	}
	r := buildReport(latencies, 3, 2, 2*time.Second)
	if r.Requests != 100 || r.Errors != 3 || r.Non200 != 2 {
		t.Errorf("counts = %d/%d/%d, want 100/3/2", r.Requests, r.Errors, r.Non200)
	}
	checks := map[string][2]float64{
		"elapsedMs":         {float64(r.ElapsedMs), 2000},
		"requestsPerSecond": {float64(r.RequestsPerSecond), 50},
		"p50Ms":             {float64(r.P50Ms), 50},
		"p90Ms":             {float64(r.P90Ms), 90},
		"p99Ms":             {float64(r.P99Ms), 99},
		"maxMs":             {float64(r.MaxMs), 100},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if latencies[0] != 1 || latencies[99] != 100 {
		t.Errorf("latencies not sorted in place: first %v, last %v", latencies[0], latencies[99])
	}
}

func TestReportJSONKeepsLoadReportShape(t *testing.T) {
	r := buildReport([]float64{2.5, 0.75, 1.25}, 0, 1, 1500*time.Millisecond)
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"requests":3,"errors":0,"non200":1,"elapsedMs":1500,"requestsPerSecond":2,` +
		`"p50Ms":1.25,"p90Ms":2.5,"p99Ms":2.5,"maxMs":2.5}`
	if string(line) != want {
		t.Errorf("report JSON\n got %s\nwant %s", line, want)
	}
}

func TestEmptyReportEncodesNaNAsNull(t *testing.T) {
	// As JSON.stringify writes NaN: no completed request gives null percentiles.
	line, err := json.Marshal(buildReport(nil, 5, 0, 0))
	if err != nil {
		t.Fatalf("encoding an empty report: %v", err)
	}
	want := `{"requests":0,"errors":5,"non200":0,"elapsedMs":0,"requestsPerSecond":null,` +
		`"p50Ms":null,"p90Ms":null,"p99Ms":null,"maxMs":null}`
	if string(line) != want {
		t.Errorf("empty report JSON\n got %s\nwant %s", line, want)
	}
}

func TestParseSpec(t *testing.T) {
	load, err := parseSpec(`{"port":18555,"path":"/dragnet","method":"POST","bodyFile":"go.mod",` +
		`"mode":"open","rate":250,"concurrency":64,"durationMs":1500,"maxRequests":1000}`)
	if err != nil {
		t.Fatal(err)
	}
	if load.URL != "https://127.0.0.1:18555/dragnet" || load.Closed || load.Rate != 250 ||
		load.PoolSize != 64 || load.Duration != 1500*time.Millisecond || load.MaxRequests != 1000 ||
		!strings.HasPrefix(string(load.Body), "module ") {
		t.Errorf("unexpected load %+v", load)
	}
	load, err = parseSpec(`{"port":1,"path":"/","method":"PUT","bodyFile":"go.mod","mode":"closed",` +
		`"durationMs":10,"maxRequests":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if !load.Closed || load.Concurrency != defaultConcurrency || load.PoolSize != defaultConcurrency {
		t.Errorf("closed-loop defaults not applied: %+v", load)
	}
	for _, bad := range []string{
		`not json`,
		`{"port":0,"path":"/","method":"POST","bodyFile":"go.mod","mode":"closed","durationMs":10,"maxRequests":1}`,
		`{"port":1,"path":"x","method":"POST","bodyFile":"go.mod","mode":"closed","durationMs":10,"maxRequests":1}`,
		`{"port":1,"path":"/","method":"GET","bodyFile":"go.mod","mode":"closed","durationMs":10,"maxRequests":1}`,
		`{"port":1,"path":"/","method":"POST","bodyFile":"go.mod","mode":"both","durationMs":10,"maxRequests":1}`,
		`{"port":1,"path":"/","method":"POST","bodyFile":"go.mod","mode":"open","rate":0,"durationMs":10,"maxRequests":1}`,
		`{"port":1,"path":"/","method":"POST","bodyFile":"go.mod","mode":"closed","concurrency":0,"durationMs":10,"maxRequests":1}`,
		`{"port":1,"path":"/","method":"POST","bodyFile":"go.mod","mode":"closed","durationMs":0,"maxRequests":1}`,
		`{"port":1,"path":"/","method":"POST","bodyFile":"no-such-file","mode":"closed","durationMs":10,"maxRequests":1}`,
	} {
		if _, err := parseSpec(bad); err == nil {
			t.Errorf("parseSpec(%s) accepted", bad)
		}
	}
}
