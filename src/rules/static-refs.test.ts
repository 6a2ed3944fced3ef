import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStaticRefs } from './static-refs.js';

// `serve --refs`: the Namespace and Node manifests are read as kubectl reads a manifest, like
// every other manifest the CLI and the dry-run API read (issue 27).

function refsFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'static-refs-'));
  const path = join(dir, 'refs.yaml');
  writeFileSync(path, text);
  return path;
}

describe('loadStaticRefs', () => {
  it('reads YAML 1.1 scalars as kubectl does, and serves Namespaces and Nodes by name', async () => {
    const refs = await loadStaticRefs(
      refsFile(`apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {audited: yes, tier: 010}}
---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {spot: on}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ignored}
`),
    );
    expect(refs.namespace('shop')).toMatchObject({
      metadata: { labels: { audited: true, tier: 8 } },
    });
    expect(refs.node('node-1')).toMatchObject({ metadata: { labels: { spot: true } } });
    expect(refs.namespace('ignored')).toBeUndefined();
    expect(refs.namespace('node-1')).toBeUndefined();
  });

  it('refuses a file that is not valid YAML, naming it', async () => {
    const path = refsFile('kind: Namespace\nmetadata: {name: [\n');
    await expect(loadStaticRefs(path)).rejects.toThrow(`${path}: not valid YAML`);
  });
});
