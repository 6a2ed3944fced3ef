package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// requestTimeout bounds one request (connection wait included), so a stuck server cannot hang
	// the benchmark; a request that times out counts as an error.
	requestTimeout = 30 * time.Second
	// maxWarmUp caps the warm-up burst of an open loop (see warmUp).
	maxWarmUp = 32
	// spinWindow: the open-loop scheduler sleeps until this long before a request's intended send
	// time and yields in a loop (runtime.Gosched) for the rest, because the Go runtime's timers
	// wake up ~0.2–1 ms late on Linux (a sub-millisecond sleep takes ~1 ms), and that lateness
	// would otherwise be added to every open-loop latency. The price is CPU: up to spinWindow per
	// request, e.g. ~40% of a core at 500 req/s (the load generator has a CPU of its own in
	// bench/http-bench.ts).
	spinWindow = time.Millisecond
)

// outcome of one request.
type outcome struct {
	sentAt    time.Time // the send time in a closed loop, the intended one in an open loop
	latencyMs float64
	status    int
	err       error
}

// generator sends the requests of a Load over one keep-alive connection pool.
type generator struct {
	load   Load
	client *http.Client
	dials  atomic.Int64 // TCP connections opened
	// Open loop: how late the scheduler fired, summed and at worst (for LOADGEN_VERBOSE).
	lateSum, lateMax time.Duration
}

func newGenerator(load Load) *generator {
	g := &generator{load: load}
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			g.dials.Add(1)
			return dialer.DialContext(ctx, network, addr)
		},
		// Loopback benchmark against the server's self-signed certificate.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec
		// HTTP/1.1 only (the server speaks nothing else): a non-nil empty TLSNextProto disables
		// HTTP/2.
		ForceAttemptHTTP2:   false,
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
		MaxIdleConns:        load.PoolSize,
		MaxIdleConnsPerHost: load.PoolSize,
		MaxConnsPerHost:     load.PoolSize,
		// Below the server's advertised keep-alive (Keep-Alive: timeout=5): a connection idle that
		// long is closed by this side, not by the server while a request is being sent on it (a
		// POST lost to that race is not retried: "connection reset by peer" in bench:hostile).
		IdleConnTimeout:     4 * time.Second,
		DisableCompression:  true,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	g.client = &http.Client{Transport: transport, Timeout: requestTimeout}
	return g
}

// send issues one request, reads and discards the whole response, and returns its latency from
// `from` (the send time in a closed loop, the intended send time in an open loop).
func (g *generator) send(from time.Time) outcome {
	req, err := http.NewRequest(g.load.Method, g.load.URL, bytes.NewReader(g.load.Body))
	if err != nil {
		return outcome{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := g.client.Do(req)
	if err != nil {
		return outcome{err: err}
	}
	_, err = io.Copy(io.Discard, resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return outcome{err: err}
	}
	return outcome{sentAt: from, latencyMs: float64(time.Since(from)) / float64(time.Millisecond), status: resp.StatusCode}
}

// warmUp opens the connections before the measurement, so that TCP and TLS handshakes (each a few
// milliseconds of server CPU) are not in the measured latencies: it sends a burst of concurrent
// requests, not counted, and keeps their connections in the idle pool. A closed loop warms all
// `concurrency` connections it will use; an open loop warms min(pool size, 32), the connections
// its steady state needs at the benchmark's rates (more open on demand if requests pile up). It
// fails only if every warm-up request fails (e.g. no server on the port).
func (g *generator) warmUp() error {
	n := g.load.PoolSize
	if !g.load.Closed {
		n = min(n, maxWarmUp)
	}
	results := make([]outcome, n)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = g.send(time.Now())
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.err == nil {
			return nil
		}
	}
	return fmt.Errorf("warm-up: all %d requests failed, e.g.: %w", n, results[0].err)
}

// closedLoop runs `concurrency` workers, each sending its next request as soon as the previous
// one is answered, until the deadline or until maxRequests requests have been started in total.
func (g *generator) closedLoop(deadline time.Time) []outcome {
	var started atomic.Int64
	perWorker := make([][]outcome, g.load.Concurrency)
	var wg sync.WaitGroup
	for w := range perWorker {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []outcome
			for time.Now().Before(deadline) && started.Add(1) <= int64(g.load.MaxRequests) {
				mine = append(mine, g.send(time.Now()))
			}
			perWorker[w] = mine
		}()
	}
	wg.Wait()
	var all []outcome
	for _, mine := range perWorker {
		all = append(all, mine...)
	}
	return all
}

// openLoop sends request i at the intended time t0 + i/rate, each from its own goroutine and
// whatever the answers, until the deadline or maxRequests; latencies are measured from the
// intended time, so a slow server is charged for the requests it delays (no coordinated
// omission). When the scheduler falls behind it fires the overdue requests at once (catches up)
// rather than skipping them.
func (g *generator) openLoop(t0, deadline time.Time) []outcome {
	total := g.load.MaxRequests
	if scheduled := math.Ceil(g.load.Rate * g.load.Duration.Seconds()); scheduled < float64(total) {
		total = int(scheduled)
	}
	results := make([]outcome, total)
	var wg sync.WaitGroup
	fired := 0
	for i := 0; i < total; i++ {
		intended := t0.Add(time.Duration(float64(i) / g.load.Rate * float64(time.Second)))
		if !intended.Before(deadline) {
			break
		}
		waitUntil(intended)
		late := time.Since(intended)
		g.lateSum += late
		g.lateMax = max(g.lateMax, late)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = g.send(intended)
		}()
		fired++
	}
	wg.Wait()
	return results[:fired]
}

// waitUntil returns at t (or at once if t is past), sleeping for most of the wait and yielding in
// a loop for the last spinWindow (see spinWindow).
func waitUntil(t time.Time) {
	if d := time.Until(t) - spinWindow; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
}

// runLoad warms the connections up, runs the load and summarises it; elapsed time runs from the
// start of the measurement to the last answer.
func runLoad(load Load, verbose bool) (Report, error) {
	g := newGenerator(load)
	defer g.client.CloseIdleConnections()
	warmStart := time.Now()
	if err := g.warmUp(); err != nil {
		return Report{}, err
	}
	warmDials := g.dials.Load()
	warmMs := float64(time.Since(warmStart)) / float64(time.Millisecond)

	t0 := time.Now()
	deadline := t0.Add(load.Duration)
	var results []outcome
	if load.Closed {
		results = g.closedLoop(deadline)
	} else {
		results = g.openLoop(t0, deadline)
	}
	elapsed := time.Since(t0)

	latencies := make([]float64, 0, len(results))
	errorCount, non200 := 0, 0
	var firstErr error
	for _, r := range results {
		switch {
		case r.err != nil:
			errorCount++
			if firstErr == nil {
				firstErr = r.err
			}
		default:
			if r.status != http.StatusOK {
				non200++
			}
			latencies = append(latencies, r.latencyMs)
		}
	}
	if verbose {
		fmt.Fprintf(os.Stderr, "loadgen: warm-up %.1f ms, %d connections; %d more opened while measuring; %d requests sent\n",
			warmMs, warmDials, g.dials.Load()-warmDials, len(results))
		if !load.Closed && len(results) > 0 {
			fmt.Fprintf(os.Stderr, "loadgen: open-loop scheduler fired %v late on average, %v at worst\n",
				g.lateSum/time.Duration(len(results)), g.lateMax)
		}
	}
	if path := os.Getenv("LOADGEN_TRACE"); path != "" {
		writeTrace(path, results)
	}
	if firstErr != nil {
		fmt.Fprintf(os.Stderr, "loadgen: %d request(s) failed, first: %v\n", errorCount, firstErr)
	}
	return buildReport(latencies, errorCount, non200, elapsed), nil
}

// writeTrace appends one line per answered request to the file at path (diagnosis only, set by
// LOADGEN_TRACE): its send time in Unix milliseconds, its latency in milliseconds and its status.
func writeTrace(path string, results []outcome) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadgen: trace: %v\n", err)
		return
	}
	defer f.Close()
	for _, r := range results {
		if r.err == nil {
			fmt.Fprintf(f, "%.3f %.3f %d\n", float64(r.sentAt.UnixNano())/1e6, r.latencyMs, r.status)
		}
	}
}
