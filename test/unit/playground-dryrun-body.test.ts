import { describe, expect, it } from 'vitest';

// The dry-run body the playground builds from its editors (src/playground/run-dryrun.js): the
// context panel's manifests become `syntheticRefs`, the old object `oldResourceManifest` whenever
// given (for DELETE it is the object deleted and goes alone, as the API server sends it; with
// CREATE the dry run refuses it, as `test` and `dryrun --old` do: issue 39), empty editors send
// nothing.

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
interface RunModule {
  dryRunBody(state: State, override?: { resource?: string; old?: string }): Record<string, unknown>;
}

const modulePath = new URL('../../src/playground/run-dryrun.js', import.meta.url).href;
const run = (await import(modulePath)) as RunModule;

const BASE: State = {
  rules: 'kind: ModRule\n',
  resource: 'kind: Pod\nmetadata:\n  name: new\n',
  namespace: '',
  operation: 'CREATE',
  namespaceManifest: '',
  nodeManifest: '',
  old: '',
  cluster: '',
};

describe('playground dry-run body', () => {
  it('sends only the rules, the resource and the operation when the context is empty', () => {
    expect(run.dryRunBody(BASE)).toEqual({
      modRules: BASE.rules,
      resourceManifest: BASE.resource,
      operation: 'CREATE',
    });
    expect(run.dryRunBody({ ...BASE, namespace: 'shop', namespaceManifest: '  \n' })).toEqual({
      modRules: BASE.rules,
      resourceManifest: BASE.resource,
      operation: 'CREATE',
      namespace: 'shop',
    });
  });

  it('sends the namespace and node manifests as syntheticRefs', () => {
    const namespaceManifest = 'kind: Namespace\nmetadata:\n  name: shop\n';
    const nodeManifest = 'kind: Node\nmetadata:\n  name: n1\n';
    expect(run.dryRunBody({ ...BASE, namespaceManifest }).syntheticRefs).toEqual({
      namespace: namespaceManifest,
    });
    expect(run.dryRunBody({ ...BASE, namespaceManifest, nodeManifest }).syntheticRefs).toEqual({
      namespace: namespaceManifest,
      node: nodeManifest,
    });
  });

  it('sends the cluster objects as the YAML text of `cluster`, nothing when the editor is blank', () => {
    const cluster = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\nkind: X\n';
    expect(run.dryRunBody({ ...BASE, cluster })).toEqual({
      modRules: BASE.rules,
      resourceManifest: BASE.resource,
      operation: 'CREATE',
      cluster,
    });
    expect(run.dryRunBody({ ...BASE, cluster: ' \n\n' })).not.toHaveProperty('cluster');
  });

  it('sends the old object with UPDATE, alone for DELETE, and with CREATE (to be refused)', () => {
    const old = 'kind: Pod\nmetadata:\n  name: new\n  labels: {a: b}\n';
    expect(run.dryRunBody({ ...BASE, old })).toEqual({
      modRules: BASE.rules,
      resourceManifest: BASE.resource,
      oldResourceManifest: old,
      operation: 'CREATE',
    });
    expect(run.dryRunBody({ ...BASE, old, operation: 'UPDATE' })).toEqual({
      modRules: BASE.rules,
      resourceManifest: BASE.resource,
      oldResourceManifest: old,
      operation: 'UPDATE',
    });
    expect(run.dryRunBody({ ...BASE, old, operation: 'DELETE' })).toEqual({
      modRules: BASE.rules,
      oldResourceManifest: old,
      operation: 'DELETE',
    });
    // Without an old object, DELETE evaluates the resource editor, as before.
    expect(run.dryRunBody({ ...BASE, operation: 'DELETE' })).toEqual({
      modRules: BASE.rules,
      resourceManifest: BASE.resource,
      operation: 'DELETE',
    });
  });

  it('sends one document of several when evaluating them one at a time', () => {
    const body = run.dryRunBody(
      { ...BASE, operation: 'UPDATE', old: 'a\n---\nb\n' },
      { resource: 'kind: Pod\n', old: 'kind: Pod\nx: 1\n' },
    );
    expect(body.resourceManifest).toBe('kind: Pod\n');
    expect(body.oldResourceManifest).toBe('kind: Pod\nx: 1\n');
  });
});
