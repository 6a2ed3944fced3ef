import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

/**
 * The Chromium the browser tests drive: $CHROMIUM_PATH, or chromium / chromium-browser on PATH
 * (scripts/install-chromium.sh installs Debian's package; `npm run test:browser` runs it first).
 * Throws with that hint when there is none: the test fails rather than being skipped.
 */
export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const path = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (path !== '') return path;
    } catch {
      // not on PATH; try the next name
    }
  }
  throw new Error(
    'no Chromium found: run `bash scripts/install-chromium.sh` (Debian) or set CHROMIUM_PATH',
  );
}

/** Headless Chromium, accepting serve's self-signed certificate. */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    acceptInsecureCerts: true,
    defaultViewport: { width: 1400, height: 1000 },
    args: [
      // Root in a container has no user namespaces for Chromium's sandbox; the page under test
      // is our own.
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--ignore-certificate-errors',
      '--no-first-run',
      '--no-default-browser-check',
    ],
  });
}
