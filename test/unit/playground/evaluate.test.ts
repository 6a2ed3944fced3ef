import { describe, expect, it } from 'vitest';
import { PLAYGROUND_CSP } from '../../../src/webhook/playground/playground-route.js';

// src/playground/evaluate.js is browser code checked by tsconfig.playground.json; its policy
// reader is plain string handling and runs here as is.
interface EvaluateModule {
  readonly forbidsEval: (policy: string) => boolean;
}
const modulePath = new URL('../../../src/playground/evaluate.js', import.meta.url).href;
const { forbidsEval } = (await import(modulePath)) as EvaluateModule;

describe('evaluate.js: when the page must ask its server', () => {
  it("reads serve's own policy as forbidding template functions", () => {
    expect(forbidsEval(PLAYGROUND_CSP)).toBe(true);
  });

  it.each([
    ['', false],
    ["img-src 'self'", false],
    ["default-src 'self'", true],
    ["default-src 'self'; script-src 'self' 'unsafe-eval'", false],
    ["script-src 'self' 'unsafe-eval'; default-src 'none'", false],
    ["Script-Src 'self'", true],
    // Several policies (headers joined with commas) each apply: one forbidding is enough.
    ["script-src 'self' 'unsafe-eval', script-src 'self'", true],
    ["script-src 'self', script-src 'self' 'unsafe-eval'", true],
    ["script-src 'unsafe-eval', default-src 'self' 'unsafe-eval'", false],
  ])('policy %j forbids eval: %s', (policy, expected) => {
    expect(forbidsEval(policy)).toBe(expected);
  });
});
