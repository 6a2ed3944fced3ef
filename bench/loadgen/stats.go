package main

import (
	"encoding/json"
	"math"
	"sort"
	"time"
)

// Report is the LoadReport of bench/lib/load-generator.ts, field for field. Latencies are in
// milliseconds.
type Report struct {
	Requests          int    `json:"requests"`
	Errors            int    `json:"errors"`
	Non200            int    `json:"non200"`
	ElapsedMs         Number `json:"elapsedMs"`
	RequestsPerSecond Number `json:"requestsPerSecond"`
	P50Ms             Number `json:"p50Ms"`
	P90Ms             Number `json:"p90Ms"`
	P99Ms             Number `json:"p99Ms"`
	MaxMs             Number `json:"maxMs"`
}

// Number is a float64 that encodes NaN and ±Inf as JSON null (which encoding/json refuses to
// encode at all), the way JSON.stringify does; e.g. the percentiles of a run with no completed
// request.
type Number float64

// MarshalJSON implements json.Marshaler.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// percentile returns the q-quantile (0 ≤ q ≤ 1) of ascending `sorted` with the definition of
// percentile in bench/lib/measure.ts: the element at index ceil(q·n)−1, clamped to [0, n−1]; NaN
// when empty.
func percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	index := int(math.Ceil(q*float64(n))) - 1
	if index < 0 {
		index = 0
	}
	if index > n-1 {
		index = n - 1
	}
	return sorted[index]
}

// buildReport sorts latenciesMs in place (one entry per completed request, non-200 answers
// included) and summarises the run.
func buildReport(latenciesMs []float64, errors, non200 int, elapsed time.Duration) Report {
	sort.Float64s(latenciesMs)
	elapsedMs := float64(elapsed) / float64(time.Millisecond)
	rps := math.NaN()
	if elapsedMs > 0 {
		rps = float64(len(latenciesMs)) / elapsedMs * 1000
	}
	maxMs := math.NaN()
	if len(latenciesMs) > 0 {
		maxMs = latenciesMs[len(latenciesMs)-1]
	}
	return Report{
		Requests:          len(latenciesMs),
		Errors:            errors,
		Non200:            non200,
		ElapsedMs:         Number(elapsedMs),
		RequestsPerSecond: Number(rps),
		P50Ms:             Number(percentile(latenciesMs, 0.5)),
		P90Ms:             Number(percentile(latenciesMs, 0.9)),
		P99Ms:             Number(percentile(latenciesMs, 0.99)),
		MaxMs:             Number(maxMs),
	}
}
