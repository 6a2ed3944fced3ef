import { afterEach, describe, expect, it } from 'vitest';
import { regexEngine, setRegexEngine, type NativeLoader } from '../engine/re2-engine.js';
import { chooseRegexEngine, REGEX_ENGINE_ENV } from './regex-engine-choice.js';

const missing: NativeLoader = () => {
  throw new Error('Cannot find module /x/re2/build/Release/re2.node');
};

function choose(
  env: Record<string, string>,
  loadNative?: NativeLoader,
): { error: string | undefined; stderr: string } {
  let stderr = '';
  const error = chooseRegexEngine(env, (text) => (stderr += text), loadNative);
  return { error, stderr };
}

describe('the regex engine of a command', () => {
  afterEach(() => {
    setRegexEngine(undefined);
  });

  it('uses the native addon silently when it loads', () => {
    expect(choose({})).toEqual({ error: undefined, stderr: '' });
    expect(regexEngine().name).toBe('re2');
  });

  it('falls back to re2js with one notice line on stderr when the addon does not load', () => {
    const { error, stderr } = choose({}, missing);
    expect(error).toBeUndefined();
    expect(stderr).toMatch(
      /^kubemod-ts: notice: the native re2 addon is not available \([^\n]*\n$/,
    );
    expect(stderr).toContain('re2.node');
    expect(regexEngine().name).toBe('re2js');
  });

  it.each([
    [{ [REGEX_ENGINE_ENV]: 're2js' }, 're2js'],
    [{ [REGEX_ENGINE_ENV]: '' }, 're2'],
  ])('follows %j without a notice', (env, name) => {
    expect(choose(env)).toEqual({ error: undefined, stderr: '' });
    expect(regexEngine().name).toBe(name);
  });

  it('refuses re2 when the addon cannot be loaded, and an unknown engine', () => {
    expect(choose({ [REGEX_ENGINE_ENV]: 're2' }, missing).error).toMatch(
      /^kubemod-ts: KUBEMOD_TS_REGEX_ENGINE=re2: the native re2 addon cannot be loaded: Cannot find/,
    );
    expect(choose({ [REGEX_ENGINE_ENV]: 'pcre' }).error).toBe(
      'kubemod-ts: KUBEMOD_TS_REGEX_ENGINE="pcre": must be re2 or re2js',
    );
  });
});
