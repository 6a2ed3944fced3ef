// Command oracle renders Go text/template sources with the Sprig function map, the way KubeMod
// renders ModRule values and reject messages, so that kubemod-ts's template engine can be compared
// with the real thing (test/upstream-compare/compare-templates.ts).
//
// Input on stdin: one JSON object per line,
//
//	{"template": "...", "target": <JSON>, "selectedItem": <JSON>, "namespace": "..."}
//
// (selectedItem absent means the patch operation has no select). Output on stdout: one JSON object
// per input line, {"ok": true, "out": "..."} or {"ok": false, "stage": "parse"|"exec", "err": "..."}.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
)

// patchContext has the fields and field types of KubeMod's PatchTemplateContext.
type patchContext struct {
	Namespace      string
	Target         interface{}
	SelectedItem   interface{}
	SelectKeyParts []interface{}
}

type request struct {
	Template       string          `json:"template"`
	Target         json.RawMessage `json:"target"`
	SelectedItem   json.RawMessage `json:"selectedItem"`
	SelectKeyParts json.RawMessage `json:"selectKeyParts"`
	Namespace      string          `json:"namespace"`
}

type response struct {
	OK    bool   `json:"ok"`
	Out   string `json:"out"`
	Stage string `json:"stage,omitempty"`
	Err   string `json:"err,omitempty"`
}

func decode(raw json.RawMessage) (interface{}, error) {
	var v interface{}
	if len(raw) == 0 {
		return nil, nil
	}
	err := json.Unmarshal(raw, &v)
	return v, err
}

func render(req request) response {
	tpl, err := template.New("value").Funcs(sprig.TxtFuncMap()).Parse(req.Template)
	if err != nil {
		return response{Stage: "parse", Err: err.Error()}
	}
	target, err := decode(req.Target)
	if err != nil {
		return response{Stage: "input", Err: err.Error()}
	}
	selected, err := decode(req.SelectedItem)
	if err != nil {
		return response{Stage: "input", Err: err.Error()}
	}
	keys, err := decode(req.SelectKeyParts)
	if err != nil {
		return response{Stage: "input", Err: err.Error()}
	}
	keyParts, _ := keys.([]interface{})
	// KubeMod passes a pointer to the decoded object as .Target.
	ctx := patchContext{Namespace: req.Namespace, Target: &target, SelectedItem: selected, SelectKeyParts: keyParts}
	var out strings.Builder
	if err := tpl.Execute(&out, ctx); err != nil {
		return response{Stage: "exec", Err: err.Error()}
	}
	return response{OK: true, Out: out.String()}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		var req request
		var res response
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			res = response{Stage: "input", Err: err.Error()}
		} else {
			res = render(req)
		}
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
