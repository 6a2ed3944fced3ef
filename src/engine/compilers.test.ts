import { describe, expect, it } from 'vitest';
import { formatFieldErrors } from '../api/index.js';
import { validateModRule } from './validate-modrule.js';
import { cachingCompilers, directCompilers, type Compilers } from './compilers.js';
import { evaluate } from './evaluate.js';
import type { JsonObject } from './json.js';
import { compileRule, type CompiledRule } from './rule.js';
import { RuleStore } from './store.js';

const SIDECAR = 'name: sidecar\nimage: busybox:1.36';

function rule(name: string, patch: Record<string, unknown>[], compilers: Compilers): CompiledRule {
  const result = validateModRule({
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace: 'a' },
    spec: { type: 'Patch', match: [{ select: '$.kind', matchValue: 'Pod' }], patch },
  });
  if (!result.ok) throw new Error(formatFieldErrors(result.errors));
  return compileRule(result.modRule, { compilers });
}

function pod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'a' },
    spec: { containers: [{ name: 'app', image: 'nginx' }] },
  };
}

describe('cachingCompilers', () => {
  it('reads each static value once and hands every rule the same value', () => {
    const compilers = cachingCompilers();
    const first = compilers.staticValue(SIDECAR);
    expect(first).toEqual({ name: 'sidecar', image: 'busybox:1.36' });
    expect(compilers.staticValue(SIDECAR)).toBe(first);
    // Without the cache every call reads the text again.
    const direct = directCompilers();
    expect(direct.staticValue(SIDECAR)).not.toBe(direct.staticValue(SIDECAR));
  });

  it('keeps no entry for a value that fails, and reports it every time', () => {
    const compilers = cachingCompilers();
    expect(() => compilers.staticValue('a: [1')).toThrow(/not valid YAML/);
    expect(() => compilers.staticValue('a: [1')).toThrow(/not valid YAML/);
  });

  it('starts over once it holds `capacity` sources', () => {
    const compilers = cachingCompilers(2);
    const a = compilers.staticValue('a: 1');
    expect(compilers.staticValue('a: 1')).toBe(a);
    compilers.staticValue('b: 2');
    compilers.staticValue('c: 3');
    expect(compilers.staticValue('a: 1')).not.toBe(a);
    expect(compilers.staticValue('a: 1')).toEqual(a);
  });

  it('a shared static value is never changed by the patches that insert it', () => {
    const compilers = cachingCompilers();
    const store = new RuleStore();
    // Applied in name order within the tier: add the sidecar, change the inserted copy's image,
    // then add the same value again; the second copy must still read busybox.
    store.put(
      rule('r1-add', [{ op: 'add', path: '/spec/containers/-1', value: SIDECAR }], compilers),
    );
    store.put(
      rule(
        'r2-replace',
        [{ op: 'replace', path: '/spec/containers/1/image', value: 'evil:1' }],
        compilers,
      ),
    );
    store.put(
      rule('r3-add', [{ op: 'add', path: '/spec/containers/-1', value: SIDECAR }], compilers),
    );
    const request = { operation: 'CREATE' as const, namespace: 'a', object: pod() };
    const first = evaluate(store, request);
    expect(first.failures).toEqual([]);
    expect((first.patched.spec as { containers: unknown[] }).containers).toEqual([
      { name: 'app', image: 'nginx' },
      { name: 'sidecar', image: 'evil:1' },
      { name: 'sidecar', image: 'busybox:1.36' },
    ]);
    // Changing a result in place does not reach the next request either.
    const containers = (first.patched.spec as { containers: { image: string }[] }).containers;
    for (const c of containers) c.image = 'mutated';
    const second = evaluate(store, { ...request, object: pod() });
    expect(second.patch).toEqual(first.patch);
    expect(compilers.staticValue(SIDECAR)).toEqual({ name: 'sidecar', image: 'busybox:1.36' });
  });
});
