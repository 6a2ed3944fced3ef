// @ts-check
// Loads an editor's text from a file the user picks or from a URL the page fetches. A URL is
// fetched without credentials; the server must allow this page to read the answer (CORS), and a
// page served by `kubemod-ts serve` may fetch only from its own server (its Content-Security-
// Policy). Every failure is said in words, next to the controls: nothing fails silently.

import { byId } from './dom.js';
import { MAX_STATE_CHARS } from './share.js';

/** Largest text loaded, in characters (what the page keeps in a draft). */
export const MAX_LOADED_CHARS = MAX_STATE_CHARS;

/** @typedef {'rules' | 'resource' | 'namespaceManifest' | 'nodeManifest' | 'old' | 'cluster'} Target */

/**
 * @typedef {object} LoadHandlers
 * @property {(target: Target, text: string, what: string) => void} loaded the text read, for
 *   the editor `target`; `what` names the source for the notice (`notes.yaml`, a URL)
 */

/**
 * A fetch answer's text, or why there is none.
 * @param {string} url
 * @param {typeof fetch} fetcher
 * @returns {Promise<{ ok: true, text: string } | { ok: false, reason: string }>}
 */
export async function fetchText(url, fetcher) {
  /** @type {URL} */
  let parsed;
  try {
    parsed = new URL(url, location.href);
  } catch {
    return { ok: false, reason: `${url} is not a URL` };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { ok: false, reason: `only http and https URLs can be fetched, not ${parsed.protocol}` };
  }
  /** @type {Response} */
  let response;
  try {
    response = await fetcher(parsed.href, { credentials: 'omit', redirect: 'follow' });
  } catch {
    return {
      ok: false,
      reason: `could not fetch ${parsed.href}: the server did not answer, or did not allow this page to read its answer (it must send Access-Control-Allow-Origin; a page served by kubemod-ts serve may only fetch from its own server). Download the file and use File instead.`,
    };
  }
  if (!response.ok) {
    return {
      ok: false,
      reason: `${parsed.href} answered HTTP ${String(response.status)}${response.statusText === '' ? '' : ` ${response.statusText}`}`,
    };
  }
  const text = await response.text();
  if (text.length > MAX_LOADED_CHARS) {
    return { ok: false, reason: tooLarge(parsed.href, text.length) };
  }
  return { ok: true, text };
}

/**
 * @param {string} what
 * @param {number} length
 * @returns {string}
 */
function tooLarge(what, length) {
  return `${what} is ${String(Math.ceil(length / 1024))} KiB; the page loads at most ${String(MAX_LOADED_CHARS / 1024)} KiB`;
}

/**
 * Wires the load panel.
 * @param {LoadHandlers} handlers
 */
export function startLoadPanel(handlers) {
  const target = byId('load-target', HTMLSelectElement);
  const file = byId('load-file', HTMLInputElement);
  const form = byId('load-url-form', HTMLFormElement);
  const url = byId('load-url', HTMLInputElement);
  const error = byId('load-error', HTMLElement);
  const button = byId('load-url-button', HTMLButtonElement);
  /** @param {string | undefined} reason */
  const fail = (reason) => {
    error.textContent = reason ?? '';
    error.hidden = reason === undefined;
  };
  const into = () => /** @type {Target} */ (target.value);

  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (chosen === undefined) return;
    if (chosen.size > MAX_LOADED_CHARS * 4) {
      fail(tooLarge(chosen.name, chosen.size));
      return;
    }
    chosen.text().then(
      (text) => {
        if (text.length > MAX_LOADED_CHARS) {
          fail(tooLarge(chosen.name, text.length));
          return;
        }
        fail(undefined);
        handlers.loaded(into(), text, chosen.name);
        file.value = '';
      },
      () => {
        fail(`${chosen.name} cannot be read`);
      },
    );
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const address = url.value.trim();
    if (address === '') {
      fail('Type the URL of a manifest first.');
      return;
    }
    button.disabled = true;
    fail(undefined);
    void fetchText(address, (input, init) => fetch(input, init))
      .then((read) => {
        if (!read.ok) {
          fail(`Not loaded: ${read.reason}`);
          return;
        }
        handlers.loaded(into(), read.text, address);
      })
      .finally(() => {
        button.disabled = false;
      });
  });
}
