import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import { RuleStore } from '../engine/store.js';
import { createSilentLogger } from '../observability/logger.js';
import { FakeKube } from '../kube/fake-kube.test-support.js';
import { createInformer } from '../kube/informer.js';
import type { RawWatchEvent } from '../kube/kube-client.js';
import { loadModRule, type RuleLoadResult } from '../rules/load-modrule.js';
import { bindModRuleInformer, retainedModRule } from './modrule-sync.js';
import { desiredStatus, StatusWriter } from './status-writer.js';

function rule(name: string, spec: JsonObject, status?: JsonObject): JsonObject {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace: 'a', generation: 2, uid: 'u1' },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

const valid: JsonObject = {
  type: 'Patch',
  match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
  patch: [{ op: 'add', path: '/metadata/labels/x', value: '"y"' }],
};
const options = (store: RuleStore) => ({
  store,
  clusterNamespace: 'kubemod-system',
  logger: createSilentLogger(),
});

describe('loadModRule', () => {
  it('compiles a valid rule into the store', () => {
    const store = new RuleStore();
    const result = loadModRule(rule('ok', valid), options(store));
    expect(result).toMatchObject({ ready: true, reason: 'Loaded', generation: 2 });
    expect(store.get('a', 'ok')).toBeDefined();
  });

  it('reports field errors and removes the previous version of a rule that became invalid', () => {
    const store = new RuleStore();
    loadModRule(rule('r', valid), options(store));
    const broken = { ...valid, match: [{ select: '$.kind', matchRegex: '(' }] };
    const result = loadModRule(rule('r', broken), options(store));
    expect(result.ready).toBe(false);
    expect(result.message).toMatch(/spec\.match\[0\]\.matchRegex/);
    expect(store.get('a', 'r')).toBeUndefined();
  });
});

describe('bindModRuleInformer over a cache of retained identities', () => {
  function versioned(obj: JsonObject, resourceVersion: string, generation: number): JsonObject {
    return {
      ...obj,
      metadata: {
        ...(obj.metadata as JsonObject),
        resourceVersion,
        generation,
        managedFields: [{ manager: 'kubectl' }],
      },
    };
  }

  it('keeps only identity, compiles on spec changes, and skips recompiling on status writes', async () => {
    let emit: (event: RawWatchEvent) => void = () => undefined;
    const informer = createInformer(
      {
        list: (onPage) => {
          onPage([versioned(rule('r', valid), '1', 1)]);
          return Promise.resolve('1');
        },
        watch: (_rv, onEvent) => {
          emit = onEvent;
          return { stop: () => undefined, done: new Promise(() => undefined) };
        },
      },
      { delay: () => Promise.resolve(), retain: retainedModRule },
    );
    const store = new RuleStore();
    const results: (RuleLoadResult | undefined)[] = [];
    bindModRuleInformer(informer, {
      ...options(store),
      onResult: (_key, result) => results.push(result),
    });
    informer.start();
    await informer.waitForSync();
    expect(informer.get('a/r')).toEqual({
      metadata: { name: 'r', namespace: 'a', uid: 'u1', resourceVersion: '1', generation: 1 },
    });
    const compiled = store.get('a', 'r');
    expect(compiled).toBeDefined();

    // Our own status write: same generation, the compiled rule stays, the new status is reported.
    const status = { conditions: [{ type: 'Ready', status: 'True' }] };
    emit({ type: 'MODIFIED', object: versioned(rule('r', valid, status), '2', 1) });
    expect(store.get('a', 'r')).toBe(compiled);
    expect(results[1]).toMatchObject({ ready: true, currentStatus: status });

    // A spec change bumps the generation and is compiled (here: into an invalid rule).
    const broken = { ...valid, match: [{ select: '$.kind', matchRegex: '(' }] };
    emit({ type: 'MODIFIED', object: versioned(rule('r', broken), '3', 2) });
    expect(store.get('a', 'r')).toBeUndefined();
    expect(results[2]).toMatchObject({ ready: false, reason: 'CompileFailed', generation: 2 });

    emit({ type: 'DELETED', object: versioned(rule('r', broken), '4', 2) });
    expect(results[3]).toBeUndefined();
    expect(informer.list()).toEqual([]);
    informer.stop();
  });
});

describe('bindModRuleInformer and the behaviour annotations', () => {
  it('reloads a rule whose enforcement or failure policy changed alone (same generation)', async () => {
    const reject: JsonObject = {
      type: 'Reject',
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
    };
    const annotated = (rv: string, annotations: JsonObject): JsonObject => ({
      ...rule('r', reject),
      metadata: {
        name: 'r',
        namespace: 'a',
        uid: 'u1',
        generation: 1,
        resourceVersion: rv,
        annotations,
      },
    });
    let emit: (event: RawWatchEvent) => void = () => undefined;
    const informer = createInformer(
      {
        list: (onPage) => {
          onPage([annotated('1', { 'api.kubemod.io/enforcement': 'Warn' })]);
          return Promise.resolve('1');
        },
        watch: (_rv, onEvent) => {
          emit = onEvent;
          return { stop: () => undefined, done: new Promise(() => undefined) };
        },
      },
      { delay: () => Promise.resolve(), retain: retainedModRule },
    );
    const store = new RuleStore();
    bindModRuleInformer(informer, options(store));
    informer.start();
    await informer.waitForSync();
    expect(store.get('a', 'r')?.enforcement).toBe('Warn');
    emit({ type: 'MODIFIED', object: annotated('2', { 'api.kubemod.io/enforcement': 'Enforce' }) });
    expect(store.get('a', 'r')?.enforcement).toBe('Enforce');
    emit({ type: 'MODIFIED', object: annotated('3', { 'api.kubemod.io/failure-policy': 'Fail' }) });
    expect(store.get('a', 'r')).toMatchObject({ enforcement: 'Enforce', failurePolicy: 'Fail' });
    // An invalid value (the validating webhook bypassed) unloads the rule.
    emit({ type: 'MODIFIED', object: annotated('4', { 'api.kubemod.io/enforcement': 'Maybe' }) });
    expect(store.get('a', 'r')).toBeUndefined();
    informer.stop();
  });
});

describe('retainedModRule', () => {
  it('keeps identity, generation, the apply-to-existing annotation, the author record and its status only', () => {
    const obj = {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: {
        name: 'r',
        namespace: 'a',
        uid: 'u1',
        resourceVersion: '7',
        generation: 3,
        labels: { team: 'x' },
        annotations: {
          'api.kubemod.io/apply-to-existing': 'true',
          'api.kubemod.io/author': '{"username":"alice","groups":[],"extra":{}}',
          other: 'y',
        },
        managedFields: [{ manager: 'kubectl' }],
      },
      spec: valid,
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        applyToExisting: { phase: 'Running', updated: 4 },
      },
    };
    expect(retainedModRule(obj)).toEqual({
      metadata: {
        name: 'r',
        namespace: 'a',
        uid: 'u1',
        resourceVersion: '7',
        generation: 3,
        annotations: {
          'api.kubemod.io/apply-to-existing': 'true',
          'api.kubemod.io/author': '{"username":"alice","groups":[],"extra":{}}',
        },
      },
      status: { applyToExisting: { phase: 'Running', updated: 4 } },
    });
    // An oversized value is no record the webhook wrote: not kept in memory.
    const huge = { 'api.kubemod.io/author': 'x'.repeat(200_000) };
    expect(retainedModRule({ metadata: { name: 'r', annotations: huge } })).toEqual({
      metadata: { name: 'r' },
    });
    expect(retainedModRule({ metadata: { name: 'r', annotations: { other: 'y' } } })).toEqual({
      metadata: { name: 'r' },
    });
  });
});

describe('status', () => {
  const loaded: RuleLoadResult = {
    namespace: 'a',
    name: 'r',
    uid: 'u1',
    generation: 3,
    ready: false,
    reason: 'Invalid',
    message: 'spec.type: bad',
    currentStatus: undefined,
  };

  it('computes a Ready condition and nothing once the object carries it', () => {
    const status = desiredStatus(loaded, Date.UTC(2026, 0, 1));
    expect(status).toMatchObject({
      observedGeneration: 3,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'Invalid',
          message: 'spec.type: bad',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    });
    expect(desiredStatus({ ...loaded, currentStatus: status }, Date.now())).toBeUndefined();
  });

  it('writes through the status subresource only while leading, then on resync', async () => {
    const kube = new FakeKube();
    const path = '/apis/api.kubemod.io/v1beta1/namespaces/a/modrules/r/status';
    kube.objects.set(path, { metadata: { name: 'r' } });
    let leader = false;
    const writer = new StatusWriter({
      client: kube,
      logger: createSilentLogger(),
      now: () => 0,
      mayWrite: () => leader,
    });
    writer.record('a/r', loaded);
    await new Promise((resolve) => setImmediate(resolve));
    expect(kube.calls).toEqual([]);
    leader = true;
    writer.resync();
    await new Promise((resolve) => setImmediate(resolve));
    expect(kube.calls).toEqual([`PATCH ${path}`]);
    expect(kube.objects.get(path)?.status).toMatchObject({ observedGeneration: 3 });
  });
});
