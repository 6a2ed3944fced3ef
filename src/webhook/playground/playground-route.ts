import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { PlaygroundAssets } from './playground-assets.js';

/**
 * The page may load its own scripts, styles and icon and call its own server, nothing else: no
 * inline script or style (the page's HTML adds the code editor's style elements by nonce, see
 * playgroundHtmlCsp), no plugins, no framing, no form posts, no
 * `<base>`. With the page building its DOM from text only, user and server data cannot run.
 */
export const PLAYGROUND_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Where the page's HTML carries the nonce of its response (`<link … nonce="…">`): the code
 * editor (CodeMirror) adds its styles as `<style>` elements, which the policy allows only with
 * this nonce. The placeholder is replaced in every answer with a fresh random nonce; it stays as
 * it is in the static build, which has no policy (file://) or its host's.
 */
export const CSP_NONCE_PLACEHOLDER = '__KUBEMOD_CSP_NONCE__';

/**
 * The policy of the page's HTML: PLAYGROUND_CSP, with the style elements that carry `nonce`
 * allowed too (still no style attributes, no 'unsafe-inline', no 'unsafe-eval').
 */
export function playgroundHtmlCsp(nonce: string): string {
  return PLAYGROUND_CSP.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`);
}

/** Headers on every playground file. */
export const PLAYGROUND_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PLAYGROUND_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  // Small files that change with the version: always revalidated, never stale after an upgrade.
  'Cache-Control': 'no-cache',
};

/**
 * Serves the playground's files to GET and HEAD by exact
 * path: the request path is only ever a key of the in-memory map, never joined to a directory, so
 * nothing outside the page's files can be named. Anything else falls through to the next route
 * (the server's JSON 404).
 */
export function playgroundHandler(assets: PlaygroundAssets): RequestHandler {
  return (req: Request, res: Response, next) => {
    const asset = req.method === 'GET' || req.method === 'HEAD' ? assets.get(req.path) : undefined;
    if (asset === undefined) {
      next();
      return;
    }
    res.status(200).set(PLAYGROUND_HEADERS).type(asset.contentType);
    if (!asset.contentType.startsWith('text/html')) {
      res.send(asset.body);
      return;
    }
    const nonce = randomBytes(16).toString('base64');
    res
      .set('Content-Security-Policy', playgroundHtmlCsp(nonce))
      .send(asset.body.toString('utf8').replaceAll(CSP_NONCE_PLACEHOLDER, nonce));
  };
}
