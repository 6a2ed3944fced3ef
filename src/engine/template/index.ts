import { KubemodError } from '../../errors/catalog.js';
import { type WorkLimits } from '../work-limits.js';
import { activeMeter, charge, exempt, withMeter } from '../active-meter.js';
import { WorkMeter } from '../work-meter.js';
import { ITERATION_UNITS } from './costs.js';
import { createTemplateEnvironment, type TemplateEnvironment } from './environment.js';
import { parseError, renderError } from './faults.js';
import { lexGoTemplate } from './go-lexer.js';
import { GoTemplateParser } from './go-parser.js';
import { translateGoTemplate } from './go-translate.js';
import type { Helper } from './control-helpers.js';
import type { HbsNode } from './hbs-ast.js';
import { isNativeHandlebars, rewriteNative } from './native.js';
import {
  createRenderState,
  defaultTemplateLimits,
  limitError,
  type TemplateLimits,
} from './render-state.js';

export { defaultTemplateLimits, type TemplateLimits };

export interface CompiledTemplate {
  readonly source: string;
  /** true when the source contains no template action and render() returns source unchanged */
  readonly isStatic: boolean;
  render(context: Record<string, unknown>, limits?: Partial<TemplateLimits>): string;
}

let sharedEnvironment: TemplateEnvironment | undefined;

/**
 * The work budget of a render that runs outside any metered evaluation (evaluate() activates a
 * meter for each rule; tools and tests may render directly): far above what any real template
 * needs, and more for a render allowed more loop iterations, so only a runaway template meets it,
 * but finite: no render is ever unbounded.
 */
function unmeteredLimits(limits: TemplateLimits): Partial<WorkLimits> {
  return {
    requestUnits: Math.max(10_000_000, limits.maxIterations * ITERATION_UNITS * 2),
    requestMillis: 10_000,
  };
}

/**
 * Handlebars builds a template's function on its first render, inside a request, and that build
 * cannot be interrupted: it costs about 0.05–0.1 ms of CPU per AST node. These caps keep one
 * build to a few tens of milliseconds; real templates (a label, a sidecar container) have tens of
 * actions and at most a few hundred nodes.
 */
export const MAX_TEMPLATE_ACTIONS = 250;
export const MAX_TEMPLATE_NODES = 1_000;

/** Refuses a source with more than MAX_TEMPLATE_ACTIONS actions before parsing it. */
function checkActionCount(source: string): void {
  let actions = 0;
  for (let at = source.indexOf('{{'); at !== -1; at = source.indexOf('{{', at + 2)) {
    if (++actions > MAX_TEMPLATE_ACTIONS) {
      throw parseError(
        `template has more than ${String(MAX_TEMPLATE_ACTIONS)} actions; split it across several patch operations or rules`,
      );
    }
  }
}

/**
 * Work units per syntax node charged when a template is compiled, for the 20–80 µs its
 * first-render build takes (a unit is about 100 ns), so the compile budget of a ModRule
 * (compileRule) bounds the builds its templates will cost.
 */
export const TEMPLATE_NODE_UNITS = 400;

/** Refuses a parsed template whose handlebars AST has more than MAX_TEMPLATE_NODES nodes. */
function checkNodeCount(ast: HbsNode): void {
  let nodes = 0;
  const stack: unknown[] = [ast];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (Array.isArray(item)) {
      for (const child of item) stack.push(child);
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (typeof (item as { type?: unknown }).type === 'string' && ++nodes > MAX_TEMPLATE_NODES) {
      throw parseError(
        `template is too large (more than ${String(MAX_TEMPLATE_NODES)} syntax nodes); split it across several patch operations or rules`,
      );
    }
    // for…in, not Object.entries: no array per node (rule sets compile thousands of templates).
    const node = item as Record<string, unknown>;
    for (const key in node) {
      const child = node[key];
      if (key !== 'loc' && typeof child === 'object' && Object.hasOwn(node, key)) stack.push(child);
    }
  }
  charge(nodes * TEMPLATE_NODE_UNITS);
}

/** The handlebars environment, created on first use (never at import time). */
function environment(): TemplateEnvironment {
  sharedEnvironment ??= createTemplateEnvironment();
  return sharedEnvironment;
}

/**
 * Parses and compiles once. Go text/template sources (KubeMod's syntax, with Sprig functions) are
 * parsed and translated to a handlebars AST; native handlebars sources (see isNativeHandlebars) are
 * parsed by handlebars and rewritten onto the same safe helpers.
 * Throws KubemodError('TEMPLATE_PARSE', message) on syntax errors (unknown function names are parse errors, like Go).
 */
export function compileTemplate(source: string): CompiledTemplate {
  if (!source.includes('{{')) {
    return { source, isStatic: true, render: () => source };
  }
  checkActionCount(source);
  const env = environment();
  const native = isNativeHandlebars(source, env.functionNames);
  // Parse now so that every syntax error and unknown function is reported when the rule is
  // loaded. The handlebars function itself is built on first render: most rules in a large set
  // never match, and a built template costs ~10 KB of heap.
  const ast = native ? parseNative(source, env) : parseGo(source, env);
  checkNodeCount(ast);
  if (native) precompileOrThrow(ast, env, native);
  let built: HandlebarsTemplateDelegate | undefined;
  return {
    source,
    isStatic: false,
    render(context: Record<string, unknown>, limits?: Partial<TemplateLimits>): string {
      // The first render builds the template's function (handlebars' compiler, cold code the
      // first time: tens of milliseconds for a large template), paid once and bounded when the
      // rule was compiled (TEMPLATE_NODE_UNITS): its time does not count against the deadlines,
      // its units do. Running it is metered like any render, deadlines included, so a runaway
      // template is cut at the rule's time backstop on its first request too.
      const first = built === undefined;
      const effective: TemplateLimits = { ...defaultTemplateLimits, ...limits };
      const state = createRenderState(effective);
      const build = (): HandlebarsTemplateDelegate => {
        built ??= buildTemplate(source, env, native);
        return built;
      };
      const run = (): string => {
        const template = first ? exempt(build) : build();
        // The template was set up with its helpers and prototype rules once (setUpOnce).
        return template(context, { data: { km: state } });
      };
      let out: string;
      const meter = activeMeter();
      try {
        // Under a meter, the render spends at most its renderUnits (WorkMeter.render).
        out =
          meter === undefined
            ? withMeter(new WorkMeter(unmeteredLimits(effective)), run)
            : meter.render(run);
      } catch (err) {
        throw asRenderError(err);
      }
      if (out.length > effective.maxOutputBytes) {
        throw limitError(
          `template output of ${out.length} bytes exceeds the ${effective.maxOutputBytes} byte limit`,
        );
      }
      return out;
    },
  };
}

/** What every render runs with: only the helpers the template uses, no inherited properties. */
interface RuntimeOptions {
  readonly helpers: Record<string, Helper>;
  readonly allowProtoPropertiesByDefault: false;
  readonly allowProtoMethodsByDefault: false;
  readonly allowedProtoProperties: Record<string, boolean> | undefined;
  readonly allowedProtoMethods: Record<string, boolean> | undefined;
}

function compileOptions(env: TemplateEnvironment, native: boolean): CompileOptions {
  return {
    ...env.compileOptions,
    knownHelpers: { ...env.compileOptions.knownHelpers },
    ignoreStandalone: !native,
  };
}

/** Runs the whole handlebars compiler once, so unknown helpers and similar errors surface now. */
function precompileOrThrow(ast: HbsNode, env: TemplateEnvironment, native: boolean): void {
  try {
    env.hb.precompile(ast, compileOptions(env, native));
  } catch (err) {
    throw asParseError(err);
  }
}

function buildTemplate(
  source: string,
  env: TemplateEnvironment,
  native: boolean,
): HandlebarsTemplateDelegate {
  const ast = native ? parseNative(source, env) : parseGo(source, env);
  const template = compileRuntime(ast, env, native);
  // Go templates never resolve paths through handlebars (fields go through _field), so only native
  // templates need the list that silently denies inherited properties.
  const denied = native ? env.deniedProtoNames : undefined;
  const options: RuntimeOptions = {
    helpers: usedHelpers(ast, env),
    allowProtoPropertiesByDefault: false,
    allowProtoMethodsByDefault: false,
    allowedProtoProperties: denied,
    allowedProtoMethods: denied,
  };
  setUpOnce(template, options);
  return template;
}

/** What handlebars' instance has besides its typed API: the two compiler stages compile() runs. */
interface HandlebarsCompilers {
  readonly Compiler: new () => { compile(ast: unknown, options: object): unknown };
  readonly JavaScriptCompiler: new () => {
    compile(environment: unknown, options: object, context: undefined, asObject: true): unknown;
  };
}

/**
 * The template's function, built now: what handlebars' compile() builds lazily on a template's
 * first call (the same parse, compiler and runtime steps), so that the build is all here and the
 * runtime template is the one returned (setUpOnce needs it).
 */
function compileRuntime(
  ast: HbsNode,
  env: TemplateEnvironment,
  native: boolean,
): HandlebarsTemplateDelegate {
  const options = { ...compileOptions(env, native) };
  const hb = env.hb as typeof env.hb & HandlebarsCompilers;
  const program = hb.parse(ast as unknown as string, options);
  const environment = new hb.Compiler().compile(program, options);
  const spec = new hb.JavaScriptCompiler().compile(environment, options, undefined, true);
  return hb.template(spec as Parameters<typeof hb.template>[0]);
}

/**
 * Sets the template's runtime up once for all its renders. Handlebars sets a template's runtime
 * container up from the options of every call (`_setup`: the helpers, each wrapped in a new
 * closure, and the prototype access rules), about 2 KB of garbage per render. Our options are the
 * same on every render (a render's own state travels in `data`), so `_setup` runs here with them
 * and is then skipped. A handlebars without `_setup` is refused here, on the first render of every
 * template, rather than rendered without the helpers and prototype rules.
 */
function setUpOnce(template: HandlebarsTemplateDelegate, options: RuntimeOptions): void {
  const target = template as { _setup?: unknown };
  const setup = target._setup;
  if (typeof setup !== 'function') {
    throw new Error('this handlebars version has no template _setup; see setUpOnce');
  }
  setup.call(template, options);
  target._setup = (): void => undefined;
}

/** The helpers a template can call: every single-name path in it that names a helper. */
function usedHelpers(ast: HbsNode, env: TemplateEnvironment): Record<string, Helper> {
  const used: Record<string, Helper> = {};
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const node = value as HbsNode;
    if (node.type === 'PathExpression' && Array.isArray(node.parts) && node.parts.length === 1) {
      const name: unknown = node.parts[0];
      const helper =
        typeof name === 'string' && Object.hasOwn(env.helpers, name)
          ? env.helpers[name]
          : undefined;
      if (helper !== undefined && typeof name === 'string') used[name] = helper;
      return;
    }
    for (const key of ['body', 'program', 'inverse', 'path', 'params', 'hash', 'pairs', 'value']) {
      if (key !== 'value' || node.type === 'HashPair') visit(node[key]);
    }
  };
  visit(ast);
  return used;
}

function parseGo(source: string, env: TemplateEnvironment): HbsNode {
  try {
    const nodes = new GoTemplateParser(lexGoTemplate(source), env.functionNames).parse();
    return translateGoTemplate(nodes);
  } catch (err) {
    throw asParseError(err);
  }
}

function parseNative(source: string, env: TemplateEnvironment): HbsNode {
  let program: unknown;
  try {
    program = env.hb.parse(source);
  } catch (err) {
    throw asParseError(err);
  }
  return rewriteNative(program as HbsNode, env.functionNames);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function asParseError(err: unknown): KubemodError {
  if (err instanceof KubemodError)
    return err.kind === 'TEMPLATE_PARSE' ? err : parseError(err.message);
  return parseError(message(err));
}

function asRenderError(err: unknown): KubemodError {
  if (err instanceof KubemodError) return err;
  if (err instanceof RangeError)
    return renderError(`template is too deeply nested: ${err.message}`);
  return renderError(message(err));
}
