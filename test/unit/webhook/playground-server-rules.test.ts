import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPlaygroundAssets } from '../../../src/webhook/playground/playground-assets.js';
import { PLAYGROUND_CSP } from '../../../src/webhook/playground/playground-route.js';
import { readServerRules } from '../../../src/webhook/playground/playground-server-rules.js';
import { send, startHarness, testTls, type Harness } from './harness.js';

const RULE = (name: string): string => `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: ${name}
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Deployment
  patch:
    - op: add
      path: /metadata/labels/owner
      value: team
`;

let harness: Harness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function rulesDir(): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'kubemod-server-rules-'));
  await mkdir(join(dir, 'team'));
  await writeFile(join(dir, 'b.yaml'), `# second\n${RULE('b')}---\n${RULE('c')}`);
  await writeFile(join(dir, 'a.yml'), RULE('a'));
  await writeFile(join(dir, 'team', 'd.json'), JSON.stringify(load(RULE('d'))));
  await writeFile(join(dir, 'notes.txt'), RULE('ignored'));
  await writeFile(join(dir, 'empty.yaml'), '\n');
  return dir;
}

describe('server rules for the playground', () => {
  it('reads every rule file in the order serve loads them, comments kept, and counts ModRules', async () => {
    const rules = await readServerRules(await rulesDir());
    expect(rules.count).toBe(4);
    const names = [...rules.modrules.matchAll(/^ {2}name: (\w+)$/gm)].map((m) => m[1]);
    expect(names).toEqual(['a', 'b', 'c']);
    expect(rules.modrules).toContain('# second');
    expect(rules.modrules).toContain('"name":"d"');
    expect(rules.modrules).not.toContain('ignored');
  });

  it('answers GET server-rules.json with the page headers when serve has a playground', async () => {
    const root = await rulesDir();
    harness = await startHarness({
      playground: await loadPlaygroundAssets(),
      serverRules: () => readServerRules(root),
    });
    const { ca } = testTls();
    const answer = await send(harness.server.port, ca, 'GET', '/server-rules.json', undefined, {});
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers['content-security-policy']).toBe(PLAYGROUND_CSP);
    const body = JSON.parse(answer.text) as { modrules: string; count: number };
    expect(body).toEqual(await readServerRules(root));

    // A later change to the directory (serve reloads it) is what the page sees next.
    await writeFile(join(root, 'z.yaml'), RULE('z'));
    const again = await send(harness.server.port, ca, 'GET', '/server-rules.json', undefined, {});
    expect((JSON.parse(again.text) as { count: number }).count).toBe(5);
  });

  it('is not served without the rules, and a failure to read them is a JSON 500', async () => {
    harness = await startHarness({ playground: await loadPlaygroundAssets() });
    const { ca } = testTls();
    expect(
      (await send(harness.server.port, ca, 'GET', '/server-rules.json', undefined, {})).status,
    ).toBe(404);
    await harness.close();
    harness = await startHarness({
      playground: await loadPlaygroundAssets(),
      serverRules: () => readServerRules(join(tmpdir(), 'kubemod-no-such-dir-for-rules')),
    });
    const failed = await send(harness.server.port, ca, 'GET', '/server-rules.json', undefined, {});
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.text)).toMatchObject({
      error: expect.stringMatching(/^the server's rules cannot be read: .*ENOENT/) as unknown,
      code: 'KM0000',
    });
  });
});
