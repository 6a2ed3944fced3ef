import Handlebars from 'handlebars';
import { controlHelpers, type Helper } from './control-helpers.js';
import { functionHelper, templateFunctions } from './function-helpers.js';
import type { TemplateFunction } from './function-table.js';
import { nativeHelpers } from './native-helpers.js';

type HandlebarsInstance = ReturnType<typeof Handlebars.create>;

/** An isolated handlebars instance with only the allow-listed helpers, plus the options to use it safely. */
export interface TemplateEnvironment {
  readonly hb: HandlebarsInstance;
  readonly functions: ReadonlyMap<string, TemplateFunction>;
  readonly functionNames: ReadonlySet<string>;
  /**
   * The allow-listed helpers. They are not registered on the instance: each compiled template passes
   * only the helpers it uses at render time, which keeps handlebars' per-render helper setup small.
   */
  readonly helpers: Readonly<Record<string, Helper>>;
  readonly compileOptions: CompileOptions;
  /** Every inherited property name set to false: denied silently (handlebars logs other denials). */
  readonly deniedProtoNames: Readonly<Record<string, boolean>>;
}

export interface CompileOptions {
  readonly noEscape: true;
  readonly strict: false;
  readonly knownHelpersOnly: true;
  readonly knownHelpers: Record<string, boolean>;
  readonly data: true;
  readonly compat: false;
  readonly preventIndent: true;
}

export function createTemplateEnvironment(): TemplateEnvironment {
  const hb = Handlebars.create();
  for (const name of Object.keys(hb.helpers)) hb.unregisterHelper(name);
  for (const name of Object.keys(hb.decorators)) hb.unregisterDecorator(name);
  for (const name of Object.keys(hb.partials)) hb.unregisterPartial(name);

  const functions = templateFunctions();
  const helpers: Record<string, Helper> = { ...controlHelpers(), ...nativeHelpers() };
  for (const [name, spec] of functions) helpers[name] = functionHelper(name, spec);
  const knownHelpers: Record<string, boolean> = {
    lookup: false,
    log: false,
    helperMissing: false,
    blockHelperMissing: false,
  };
  for (const [name, helper] of Object.entries(helpers)) {
    if (typeof helper === 'function') knownHelpers[name] = true;
  }
  // Reached only by constructs the compile-time checks should already reject.
  const missing = (): never => {
    throw new Error('unknown helper');
  };
  hb.registerHelper('helperMissing', missing);
  hb.registerHelper('blockHelperMissing', missing);

  const deniedProtoNames: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
  for (const proto of [
    Object.prototype,
    Array.prototype,
    String.prototype,
    Number.prototype,
    Boolean.prototype,
    Function.prototype,
    BigInt.prototype,
  ]) {
    for (const name of Object.getOwnPropertyNames(proto)) deniedProtoNames[name] = false;
  }

  return {
    hb,
    functions,
    functionNames: new Set(functions.keys()),
    helpers,
    compileOptions: {
      noEscape: true,
      strict: false,
      knownHelpersOnly: true,
      knownHelpers,
      data: true,
      compat: false,
      preventIndent: true,
    },
    deniedProtoNames,
  };
}
