import {
  fallbackNotice,
  loadRegexEngine,
  REGEX_ENGINE_NAMES,
  setRegexEngine,
  type NativeLoader,
  type RegexEngineName,
} from '../engine/re2-engine.js';
import { terminalText } from '../engine/terminal-text.js';

/**
 * The regex engine of a command's process (src/engine/re2-engine.ts): the native re2 addon when
 * it loads, else re2js with a one-line notice on stderr. KUBEMOD_TS_REGEX_ENGINE chooses one:
 * `re2js` (no notice: it was asked for) or `re2` (an error when the addon cannot be loaded, for
 * installs that must have it). The dry-run worker threads of `serve` and `operator` choose the
 * same way on their own (addon if it loads), which gives the same answers (re2js-adapter.test.ts).
 */

export const REGEX_ENGINE_ENV = 'KUBEMOD_TS_REGEX_ENGINE';

/** Chooses the engine; returns the error line when the choice cannot be honoured. */
export function chooseRegexEngine(
  env: Readonly<Record<string, string | undefined>>,
  stderr: (text: string) => void,
  loadNative?: NativeLoader,
): string | undefined {
  const wanted = env[REGEX_ENGINE_ENV];
  if (wanted !== undefined && wanted !== '' && !isEngineName(wanted)) {
    return `kubemod-ts: ${REGEX_ENGINE_ENV}=${terminalText(JSON.stringify(wanted))}: must be ${REGEX_ENGINE_NAMES.join(' or ')}`;
  }
  const prefer = wanted === undefined || wanted === '' ? undefined : wanted;
  const engine = loadRegexEngine(prefer, loadNative);
  if (prefer === 're2' && engine.fallbackReason !== undefined) {
    return `kubemod-ts: ${REGEX_ENGINE_ENV}=re2: the native re2 addon cannot be loaded: ${terminalText(engine.fallbackReason)}`;
  }
  setRegexEngine(engine);
  const notice = fallbackNotice(engine);
  if (notice !== undefined) stderr(`${terminalText(notice)}\n`);
  return undefined;
}

function isEngineName(name: string): name is RegexEngineName {
  return (REGEX_ENGINE_NAMES as readonly string[]).includes(name);
}
