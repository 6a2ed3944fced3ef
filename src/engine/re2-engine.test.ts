import { afterEach, describe, expect, it } from 'vitest';
import {
  fallbackNotice,
  loadRegexEngine,
  regexEngine,
  setRegexEngine,
  type NativeLoader,
} from './re2-engine.js';
import Re2js from './re2js-adapter.js';
import { compileRegex } from './regex.js';

const missing: NativeLoader = () => {
  throw new Error("Cannot find module 're2'\nRequire stack:\n- /somewhere/regex.js");
};

describe('the regex engine choice', () => {
  afterEach(() => {
    setRegexEngine(undefined);
  });

  it('uses the native addon when it loads (it is built in this checkout)', () => {
    const engine = loadRegexEngine(undefined);
    expect(engine.name).toBe('re2');
    expect(engine.fallbackReason).toBeUndefined();
    expect(fallbackNotice(engine)).toBeUndefined();
    expect(regexEngine().name).toBe('re2');
  });

  it('falls back to re2js with the first line of the reason when the addon does not load', () => {
    const engine = loadRegexEngine(undefined, missing);
    expect(engine).toEqual({
      name: 're2js',
      RE2: Re2js,
      fallbackReason: "Cannot find module 're2'",
    });
    const notice = fallbackNotice(engine) ?? '';
    expect(notice).toMatch(/^kubemod-ts: notice: the native re2 addon is not available \(Cannot/);
    expect(notice).toContain('re2js');
    expect(notice).not.toContain('\n');
  });

  it('uses re2js without a reason, and without loading the addon, when it is asked for', () => {
    const engine = loadRegexEngine('re2js', missing);
    expect(engine).toEqual({ name: 're2js', RE2: Re2js });
    expect(fallbackNotice(engine)).toBeUndefined();
  });

  it('compiles with the engine set for the process, refusing invalid patterns on either', () => {
    setRegexEngine(loadRegexEngine(undefined, missing));
    const regex = compileRegex('^(?P<repo>[^/]+)/(.*)$');
    expect(regex.re).toBeInstanceOf(Re2js);
    expect(regex.test('their-repo/app')).toBe(true);
    expect(() => compileRegex('a(?=b)')).toThrow(/invalid regular expression/);
    setRegexEngine(undefined);
    expect(compileRegex('a').re).not.toBeInstanceOf(Re2js);
  });
});
