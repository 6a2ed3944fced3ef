import { parseError } from './faults.js';
import type { HbsNode } from './hbs-ast.js';

const GO_KEYWORDS = new Set([
  'if',
  'else',
  'end',
  'range',
  'with',
  'define',
  'template',
  'block',
  'break',
  'continue',
  'true',
  'false',
  'nil',
]);
const NATIVE_BLOCKS = new Set(['if', 'unless', 'each', 'with']);

/**
 * Decides whether a template is native handlebars rather than Go text/template, looking at every
 * `{{ … }}` action. The template is handlebars when one of its actions
 *  - opens with a handlebars-only sigil: `{{#`, `{{/` (but not a Go comment `{{/*`), `{{^`, `{{>`,
 *    `{{!`, `{{{`, `{{&`, or uses the `~` whitespace marker (`{{~`, `~}}`);
 *  - starts with `this`, `@data` or `../`;
 *  - uses a bare name that is neither a Go keyword nor a known function (e.g. `Target.metadata.name`
 *    in `{{ Target.metadata.name }}` or `{{ upper Target.metadata.name }}`) and no Go operand (`.x`,
 *    `$x`), which Go would reject as an undefined function.
 * Everything else (leading-dot fields, `$` variables, literals, function calls) is Go, so a typo such
 * as `{{ upperr .x }}` fails with Go's `function "upperr" not defined`.
 */
export function isNativeHandlebars(source: string, functions: ReadonlySet<string>): boolean {
  if (source.includes('~}}')) return true;
  for (const match of source.matchAll(/\{\{([\s\S]*?)\}\}/g)) {
    const action = match[1] ?? '';
    if (action.startsWith('~')) return true;
    if (/^-\s/.test(action)) continue; // Go trim marker
    const body = action.trimStart();
    if (body.startsWith('/*')) continue; // Go comment (or Go's error for `{{ /*`)
    if (/^[#^>!{&]/.test(body) || (body.startsWith('/') && !body.startsWith('/*'))) return true;
    if (/^(this\b|@|\.\.\/)/.test(body)) return true;
    if (hasUnknownBareName(body, functions) && !/(^|[\s(])(\$|\.(?!\.\/))/.test(body)) return true;
  }
  return false;
}

function hasUnknownBareName(action: string, functions: ReadonlySet<string>): boolean {
  // Drop string literals, and everything after an unterminated one (the action may end inside a string).
  const withoutStrings = action
    .replace(/"(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)*'/g, ' ')
    .replace(/["`'][\s\S]*$/, '');
  for (const word of withoutStrings.matchAll(/(?<![\w.$@])[A-Za-z_]\w*/g)) {
    const name = word[0];
    if (!GO_KEYWORDS.has(name) && !functions.has(name)) return true;
  }
  return false;
}

function isNode(value: unknown): value is HbsNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string'
  );
}

function pathName(node: unknown): string | undefined {
  if (!isNode(node) || node.type !== 'PathExpression') return undefined;
  const parts = node.parts;
  return Array.isArray(parts) &&
    parts.length === 1 &&
    node.data !== true &&
    typeof parts[0] === 'string'
    ? parts[0]
    : undefined;
}

/**
 * Rewrites a parsed native template in place so it runs on the same safe helpers: every
 * `{{value}}` prints through `_nprint` (Go formatting of lists/maps, budget accounting), and
 * partials, decorators and block helpers other than if/unless/each/with are rejected.
 */
export function rewriteNative(program: HbsNode, functions: ReadonlySet<string>): HbsNode {
  const body = program.body;
  if (!Array.isArray(body)) return program;
  const rewritten = body.map((statement: unknown) => rewriteStatement(statement, functions));
  return { ...program, body: rewritten };
}

function rewriteStatement(statement: unknown, functions: ReadonlySet<string>): unknown {
  if (!isNode(statement)) return statement;
  switch (statement.type) {
    case 'ContentStatement':
    case 'CommentStatement':
      return statement;
    case 'MustacheStatement': {
      const params = Array.isArray(statement.params) ? statement.params : [];
      const hasHash = isNode(statement.hash);
      const name = pathName(statement.path);
      const isCall = params.length > 0 || hasHash || (name !== undefined && functions.has(name));
      const value = isCall
        ? {
            type: 'SubExpression',
            path: statement.path,
            params,
            hash: statement.hash,
            loc: statement.loc,
          }
        : statement.path;
      const printer = {
        type: 'PathExpression',
        data: false,
        depth: 0,
        parts: ['_nprint'],
        original: '_nprint',
        loc: statement.loc,
      };
      return { ...statement, path: printer, params: [value], hash: undefined, escaped: false };
    }
    case 'BlockStatement': {
      const name = pathName(statement.path);
      if (name === undefined || !NATIVE_BLOCKS.has(name)) {
        throw parseError(
          `block helper {{#${name ?? '?'}}} is not allowed; use if, unless, each or with`,
        );
      }
      const program = isNode(statement.program)
        ? rewriteNative(statement.program, functions)
        : statement.program;
      const inverse = isNode(statement.inverse)
        ? rewriteNative(statement.inverse, functions)
        : statement.inverse;
      return { ...statement, program, inverse };
    }
    default:
      throw parseError(`${statement.type} is not supported in templates`);
  }
}
