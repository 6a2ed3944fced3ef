import { randomBytes } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// The playground's link format (src/playground/share.js, browser code without a build step). Node
// has the same CompressionStream, atob and btoa as the browser, so the module runs here as is.

interface State {
  rules: string;
  resource: string;
  namespace: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  namespaceManifest: string;
  nodeManifest: string;
  old: string;
  cluster: string;
}
type Decoded = { ok: true; state: State } | { ok: false; reason: string };
interface ShareModule {
  encodeState(state: State): Promise<string | undefined>;
  decodeState(fragment: string): Promise<Decoded>;
  isShareFragment(fragment: string): boolean;
  FRAGMENT_PREFIX: string;
  MAX_FRAGMENT_CHARS: number;
  MAX_STATE_CHARS: number;
}

const modulePath = new URL('../../src/playground/share.js', import.meta.url).href;
const share = (await import(modulePath)) as ShareModule;

const STATE: State = {
  rules: 'apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\n# ünïcödé ✓ 🚀\n',
  resource: 'kind: Pod\nmetadata:\n  name: "<b>x</b>"\n',
  namespace: 'team-a',
  operation: 'UPDATE',
  namespaceManifest: 'kind: Namespace\nmetadata:\n  name: team-a\n',
  nodeManifest: '',
  old: 'kind: Pod\nmetadata:\n  name: "<b>x</b>"\n  labels: {a: b}\n',
  cluster:
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: team-a}\n---\nkind: ExternalDataAnswers\nprovider: p\nanswers: []\n',
};

function linkOf(json: string | Buffer): string {
  return share.FRAGMENT_PREFIX + deflateSync(json).toString('base64url');
}

describe('playground link state', () => {
  it('round-trips the editors through a short base64url fragment', async () => {
    const fragment = await share.encodeState(STATE);
    expect(fragment).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(await share.decodeState(fragment ?? '')).toEqual({ ok: true, state: STATE });
    // Repetitive YAML compresses well: 100 rules fit in a few KB.
    const big = { ...STATE, rules: STATE.rules.repeat(100) };
    const bigFragment = await share.encodeState(big);
    expect(bigFragment?.length).toBeLessThan(2000);
    expect(await share.decodeState(bigFragment ?? '')).toEqual({ ok: true, state: big });
  });

  it('round-trips any text (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.string({ maxLength: 300 }),
        fc.constantFrom('CREATE', 'UPDATE', 'DELETE'),
        async (rules, resource, operation) => {
          const state: State = {
            rules,
            resource,
            namespace: '',
            operation,
            namespaceManifest: resource,
            nodeManifest: rules,
            old: '',
            cluster: resource,
          };
          const fragment = await share.encodeState(state);
          expect(await share.decodeState(fragment ?? '')).toEqual({ ok: true, state });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads links made before the context members (namespace and node manifests, old object)', async () => {
    const link = linkOf(JSON.stringify({ r: 'a: 1\n', o: 'kind: Pod\n', n: '', p: 'CREATE' }));
    expect(await share.decodeState(link)).toEqual({
      ok: true,
      state: {
        rules: 'a: 1\n',
        resource: 'kind: Pod\n',
        namespace: '',
        operation: 'CREATE',
        namespaceManifest: '',
        nodeManifest: '',
        old: '',
        cluster: '',
      },
    });
    for (const member of [{ u: 7 }, { c: ['kind: ConfigMap'] }]) {
      const bad = linkOf(JSON.stringify({ r: '', o: '', n: '', p: 'CREATE', ...member }));
      expect(await share.decodeState(bad)).toEqual({
        ok: false,
        reason: 'the link does not hold a playground state',
      });
    }
  });

  it('opens a link made before the cluster objects editor as it was, with no cluster objects', async () => {
    // Made by the playground of commit 523c596 (before the Cluster objects editor), verbatim.
    const link =
      'v1.eJyrVipSslLKzsxLsVLwzU8JKs1JjclT0lHKh4sG5KeARfKUrJSKM_ILlHSUCpSslEIDXBxDXJV0lIrhKv0Sc1OLCxKTISaUoppQYaVgGJOnVAsAhsMiBQ';
    expect(await share.decodeState(link)).toEqual({
      ok: true,
      state: {
        rules: 'kind: ModRule\n',
        resource: 'kind: Pod\n',
        namespace: 'shop',
        operation: 'UPDATE',
        namespaceManifest: 'kind: Namespace\n',
        nodeManifest: '',
        old: 'kind: Pod\nx: 1\n',
        cluster: '',
      },
    });
  });

  it('keeps the cluster objects in the link only when there are some', async () => {
    const without = await share.encodeState({ ...STATE, cluster: '' });
    const withCluster = await share.encodeState(STATE);
    expect(without).toMatch(/^v1\./);
    expect(withCluster).toMatch(/^v1\./);
    const json = (fragment: string | undefined): Record<string, unknown> =>
      JSON.parse(
        inflateSync(Buffer.from((fragment ?? '').slice(3), 'base64url')).toString(),
      ) as Record<string, unknown>;
    expect(json(without)).not.toHaveProperty('c');
    expect(json(withCluster).c).toBe(STATE.cluster);
    expect(await share.decodeState(withCluster ?? '')).toEqual({ ok: true, state: STATE });
  });

  it('takes only its own versioned fragments for states (not #results or other anchors)', () => {
    expect(share.isShareFragment('v1.eJyrVg')).toBe(true);
    for (const fragment of ['results', '', 'v1', 'V1.abc', 'inputs', 'v2.abc']) {
      expect(share.isShareFragment(fragment), fragment).toBe(false);
    }
  });

  it('does not put a state in the link when it is too large', async () => {
    const tooLong = { ...STATE, rules: 'x'.repeat(share.MAX_STATE_CHARS) };
    expect((await share.encodeState(tooLong)) === undefined).toBe(true);
    // Random text hardly compresses: well under the state limit, its link would be too long.
    const noise = randomBytes(60_000).toString('base64');
    expect(noise.length).toBeLessThan(share.MAX_STATE_CHARS);
    const fragment = await share.encodeState({ ...STATE, resource: noise });
    expect(fragment === undefined).toBe(true);
  });

  it('refuses damaged, foreign and oversized links with a reason', async () => {
    const refused = async (fragment: string): Promise<string> => {
      const decoded = await share.decodeState(fragment);
      if (decoded.ok) throw new Error(`${fragment.slice(0, 40)} was accepted`);
      return decoded.reason;
    };
    expect(await refused('state=abc')).toBe('the link was not made by this playground');
    expect(await refused(`v1.${'A'.repeat(share.MAX_FRAGMENT_CHARS)}`)).toMatch(
      /longer than 65536/,
    );
    expect(await refused('v1.abc$def')).toBe('the link is damaged (not base64url)');
    expect(await refused('v1.bm90LWRlZmxhdGU')).toBe(
      'the link is damaged (cannot be decompressed)',
    );
    expect(await refused(linkOf('{"r": '))).toBe('the link is damaged (not JSON)');
    expect(await refused(linkOf('[1, 2]'))).toBe('the link does not hold a playground state');
    expect(await refused(linkOf('{"r": "", "o": 5, "n": "", "p": "CREATE"}'))).toBe(
      'the link does not hold a playground state',
    );
    expect(await refused(linkOf('{"r": "", "o": "", "n": "", "p": "CONNECT"}'))).toBe(
      'the link names an unknown operation',
    );
  });

  it('stops inflating a crafted link once it passes the state limit', async () => {
    // 30 MB of spaces deflate to about 30 KB: a short link that would inflate to 30 MB.
    const bomb = linkOf(Buffer.alloc(30 * 1024 * 1024, ' '));
    expect(bomb.length).toBeLessThan(share.MAX_FRAGMENT_CHARS);
    const started = performance.now();
    expect(await share.decodeState(bomb)).toEqual({
      ok: false,
      reason: `the link holds more than ${String(share.MAX_STATE_CHARS)} characters`,
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
