// Command loadgen is the HTTPS load generator of the HTTP benchmark (bench/http-bench.ts; its
// input and output types are in bench/lib/load-spec.ts). A native generator, because a Node one
// fired late by its own timer resolution and added that delay to every open-loop latency:
//
//	loadgen '<json LoadSpec>'
//
// sends the content of spec.bodyFile with spec.method to https://127.0.0.1:<port><path> (HTTP/1.1,
// keep-alive, certificate not verified: a loopback benchmark of a self-signed server), either in a
// closed loop (`concurrency` requests always in flight) or an open loop (`rate` requests per second
// on a fixed schedule, whatever the answers), bounded by durationMs and maxRequests. It prints one
// JSON LoadReport line on stdout; on a bad spec or an unreachable server it prints the error on
// stderr and exits non-zero. Build it with scripts/build-loadgen.sh.
//
// Set LOADGEN_VERBOSE=1 for a diagnostic line on stderr (warm-up time, connections opened).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Spec is the LoadSpec of bench/lib/load-generator.ts, field for field.
type Spec struct {
	Port   int    `json:"port"`
	Path   string `json:"path"`
	Method string `json:"method"`
	// BodyFile names the file whose content is the body of every request.
	BodyFile string `json:"bodyFile"`
	// Mode is "closed" (Concurrency requests always in flight) or "open" (Rate requests per second
	// regardless of answers).
	Mode        string   `json:"mode"`
	Concurrency *int     `json:"concurrency,omitempty"`
	Rate        *float64 `json:"rate,omitempty"`
	DurationMs  float64  `json:"durationMs"`
	MaxRequests int      `json:"maxRequests"`
}

// Defaults for the optional fields.
const (
	defaultConcurrency = 16  // closed loop
	defaultRate        = 100 // open loop, requests per second
	// openPoolSize caps the connections of an open loop that names no concurrency: enough for the
	// requests outstanding at the rates the benchmark offers.
	openPoolSize = 256
)

// Load is a validated Spec with its defaults applied.
type Load struct {
	URL         string
	Method      string
	Body        []byte
	Closed      bool
	Concurrency int     // closed loop: workers
	Rate        float64 // open loop: requests per second
	PoolSize    int     // most connections open at once
	Duration    time.Duration
	MaxRequests int
}

func parseSpec(arg string) (Load, error) {
	var spec Spec
	dec := json.NewDecoder(strings.NewReader(arg))
	if err := dec.Decode(&spec); err != nil {
		return Load{}, fmt.Errorf("invalid LoadSpec JSON: %w", err)
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if spec.Port < 1 || spec.Port > 65535 {
		bad("port must be 1..65535, got %d", spec.Port)
	}
	if !strings.HasPrefix(spec.Path, "/") {
		bad("path must start with /, got %q", spec.Path)
	}
	if spec.Method != "POST" && spec.Method != "PUT" {
		bad("method must be POST or PUT, got %q", spec.Method)
	}
	if spec.BodyFile == "" {
		bad("bodyFile is required")
	}
	if !(spec.DurationMs > 0) {
		bad("durationMs must be > 0, got %v", spec.DurationMs)
	}
	if spec.MaxRequests < 1 {
		bad("maxRequests must be >= 1, got %d", spec.MaxRequests)
	}
	load := Load{
		URL:         fmt.Sprintf("https://127.0.0.1:%d%s", spec.Port, spec.Path),
		Method:      spec.Method,
		Duration:    time.Duration(spec.DurationMs * float64(time.Millisecond)),
		MaxRequests: spec.MaxRequests,
	}
	if spec.Concurrency != nil && *spec.Concurrency < 1 {
		bad("concurrency must be >= 1, got %d", *spec.Concurrency)
	}
	switch spec.Mode {
	case "closed":
		load.Closed = true
		load.Concurrency = defaultConcurrency
		if spec.Concurrency != nil {
			load.Concurrency = *spec.Concurrency
		}
		load.PoolSize = load.Concurrency
	case "open":
		load.Rate = defaultRate
		if spec.Rate != nil {
			load.Rate = *spec.Rate
		}
		if !(load.Rate > 0) {
			bad("rate must be > 0, got %v", load.Rate)
		}
		// A concurrency given to an open loop caps its connections
		// (requests beyond it wait for one, and the wait counts in their latency).
		load.PoolSize = openPoolSize
		if spec.Concurrency != nil {
			load.PoolSize = *spec.Concurrency
		}
	default:
		bad(`mode must be "closed" or "open", got %q`, spec.Mode)
	}
	if len(problems) > 0 {
		return Load{}, errors.New("invalid LoadSpec: " + strings.Join(problems, "; "))
	}
	body, err := os.ReadFile(spec.BodyFile)
	if err != nil {
		return Load{}, fmt.Errorf("reading bodyFile: %w", err)
	}
	load.Body = body
	return load, nil
}

func run(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: loadgen '<json LoadSpec>'")
	}
	load, err := parseSpec(args[0])
	if err != nil {
		return err
	}
	report, err := runLoad(load, os.Getenv("LOADGEN_VERBOSE") != "")
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.NewEncoder(&out).Encode(report); err != nil { // one line, newline-terminated
		return err
	}
	_, err = os.Stdout.Write(out.Bytes())
	return err
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}
