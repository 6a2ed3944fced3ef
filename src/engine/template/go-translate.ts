import type { Expr, TemplateNode } from './go-ast.js';
import {
  hbsBlock,
  hbsBoolean,
  hbsCall,
  hbsContent,
  hbsLoc,
  hbsMustache,
  hbsNull,
  hbsNumber,
  hbsPath,
  hbsProgram,
  hbsRoot,
  hbsString,
  hbsThis,
  type HbsLoc,
  type HbsNode,
} from './hbs-ast.js';

/**
 * Go template AST → handlebars AST. The mapping:
 * - text                          → content
 * - `{{ pipeline }}`              → `{{_print (pipeline)}}` (Go %v printing, `<no value>` for missing keys)
 * - `.a.b`, `$x.a`, `(p).a`       → `(_field <base> "a" "b")` (own properties only)
 * - `.` / `$`                     → `this` / `@root`
 * - `f a b`, `a | f b`            → `(f a b)`, `(f b a)`: every Go/Sprig function is a helper
 * - `42` / `'a'`                  → `(_int "42")` (Go ints are bigint); floats, strings, bools, nil → literals
 * - `{{ $x := p }}rest`           → `{{#_let (p) as |$x|}}rest{{/_let}}` (the variable lives to the end of its list;
 *                                    variables are mutable cells read with `(_get $x)` so `$x = v` → `{{_assign $x (v)}}`)
 * - `{{if p}}a{{else if q}}b{{else}}c{{end}}` → `{{#_if (p)}}a{{else}}{{#_if (q)}}b{{else}}c{{/_if}}{{/_if}}`
 * - `{{with p}}…{{end}}`          → `{{#_with (p)}}…{{/_with}}` (dot becomes the value)
 * - `{{range $i, $e := p}}…{{else}}…{{end}}` → `{{#_range (p) as |$e $i|}}…{{else}}…{{/_range}}`
 * - `.#N` (KubeMod)               → `(index (_field @root "SelectKeyParts") N)`
 * - `(p)`, the input of `| f`     → p "dug" (a nil becomes no value): `(_dfield …)`, `(_dget $x)`, `(_dig this)`
 */
export function translateGoTemplate(nodes: readonly TemplateNode[]): HbsNode {
  return hbsProgram(translateList(nodes));
}

function translateList(nodes: readonly TemplateNode[]): HbsNode[] {
  const body: HbsNode[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (node === undefined) continue;
    if (node.kind === 'text') {
      body.push(hbsContent(node.value));
      continue;
    }
    const loc = hbsLoc(node.source);
    const { decl, expr } = node.pipe;
    const value = translateExpr(expr, loc);
    if (node.kind === 'action') {
      if (decl === undefined) {
        body.push(hbsMustache('_print', [value], loc));
      } else if (decl.assign) {
        body.push(hbsMustache('_assign', [hbsPath(decl.names[0] ?? '$', loc), value], loc));
      } else {
        // The variable is in scope for the rest of the enclosing list.
        const rest = translateList(nodes.slice(i + 1));
        body.push(hbsBlock('_let', [value], hbsProgram(rest, decl.names), undefined, loc));
        return body;
      }
      continue;
    }
    const elseProgram =
      node.elseBody === undefined ? undefined : hbsProgram(translateList(node.elseBody));
    const bodyNodes = translateList(node.body);
    if (node.kind === 'range') {
      const params =
        decl === undefined
          ? undefined
          : decl.names.length === 2
            ? [decl.names[1] ?? '', decl.names[0] ?? '']
            : [...decl.names];
      body.push(hbsBlock('_range', [value], hbsProgram(bodyNodes, params), elseProgram, loc));
      continue;
    }
    const helper = node.kind === 'if' ? '_if' : '_with';
    if (decl === undefined || decl.assign) {
      const assign =
        decl?.assign === true
          ? [hbsMustache('_assign', [hbsPath(decl.names[0] ?? '$', loc), value], loc)]
          : [];
      const subject =
        decl?.assign === true ? hbsCall('_get', [hbsPath(decl.names[0] ?? '$', loc)], loc) : value;
      body.push(...assign, hbsBlock(helper, [subject], hbsProgram(bodyNodes), elseProgram, loc));
    } else {
      const name = decl.names[0] ?? '$';
      const inner = hbsBlock(
        helper,
        [hbsCall('_get', [hbsPath(name, loc)], loc)],
        hbsProgram(bodyNodes),
        elseProgram,
        loc,
      );
      body.push(hbsBlock('_let', [value], hbsProgram([inner], [name]), undefined, loc));
    }
  }
  return body;
}

function translateExpr(expr: Expr, loc: HbsLoc): HbsNode {
  switch (expr.kind) {
    case 'dot':
      return hbsThis(loc);
    case 'variable':
      return expr.name === '$' ? hbsRoot(loc) : hbsCall('_get', [hbsPath(expr.name, loc)], loc);
    case 'chain':
      return hbsCall(
        '_field',
        [translateExpr(expr.base, loc), ...expr.names.map((n) => hbsString(n, loc))],
        loc,
      );
    case 'string':
      return hbsString(expr.value, loc);
    case 'int':
      return hbsCall('_int', [hbsString(expr.value.toString(), loc)], loc);
    case 'float':
      return hbsNumber(expr.value, loc);
    case 'bool':
      return hbsBoolean(expr.value, loc);
    case 'nil':
      return hbsNull(loc);
    case 'selectKey':
      return hbsCall(
        'index',
        [
          hbsCall('_field', [hbsRoot(loc), hbsString('SelectKeyParts', loc)], loc),
          hbsCall('_int', [hbsString(expr.index.toString(), loc)], loc),
        ],
        loc,
      );
    case 'call':
      return hbsCall(
        expr.name,
        expr.args.map((a) => translateExpr(a, loc)),
        loc,
      );
    case 'dig':
      return translateDug(expr.inner, loc);
  }
}

/**
 * A value as a pipeline hands it on (nil becomes no value), without an extra helper call where
 * one can do both: `_dfield` reads a field chain and digs, `_dget` reads a variable and digs.
 * Function results (`.#N` is an index call) are dug by the function helper already.
 */
function translateDug(inner: Expr, loc: HbsLoc): HbsNode {
  switch (inner.kind) {
    case 'chain':
      return hbsCall(
        '_dfield',
        [translateExpr(inner.base, loc), ...inner.names.map((n) => hbsString(n, loc))],
        loc,
      );
    case 'variable':
      return inner.name === '$' ? hbsRoot(loc) : hbsCall('_dget', [hbsPath(inner.name, loc)], loc);
    case 'selectKey':
    case 'call':
      return translateExpr(inner, loc);
    default:
      return hbsCall('_dig', [translateExpr(inner, loc)], loc);
  }
}
