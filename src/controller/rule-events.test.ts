import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../observability/logger.js';
import type { KubeClient, KubeRequest } from '../kube/kube-client.js';
import { RuleEventRecorder } from './rule-events.js';

describe('RuleEventRecorder', () => {
  it('sends one Warning Event per rule per interval', () => {
    const sent: KubeRequest[] = [];
    const client: KubeClient = {
      request: (req) => (sent.push(req), Promise.resolve({})),
      list: () => Promise.reject(new Error('not used')),
      watch: () => ({ stop: () => undefined, done: Promise.resolve() }),
    };
    const clock = { now: 1_000_000 };
    const recorder = new RuleEventRecorder({
      client,
      logger: createSilentLogger(),
      now: () => clock.now,
      uidOf: () => 'uid-1',
    });
    const failure = {
      rule: 'a/r',
      namespace: 'a',
      name: 'r',
      field: 'spec.patch[0].value',
      code: 'KM3002',
      message: 'fail: boom',
      failurePolicy: 'Ignore' as const,
    };
    const context = {
      uid: 'x',
      operation: 'CREATE',
      kind: 'ConfigMap',
      namespace: 'a',
      name: 'cm',
    };
    expect(recorder.record(failure, context)).toBe(true);
    expect(recorder.record(failure, context)).toBe(false);
    clock.now += 60_000;
    expect(recorder.record(failure, context)).toBe(true);
    expect(
      recorder.record({ ...failure, rule: 'a/s', name: 's', failurePolicy: 'Fail' }, context),
    ).toBe(true);
    expect(sent).toHaveLength(3);
    expect(sent[0]).toMatchObject({
      method: 'POST',
      path: '/api/v1/namespaces/a/events',
      body: {
        type: 'Warning',
        reason: 'RuleFailed',
        involvedObject: { kind: 'ModRule', name: 'r', uid: 'uid-1' },
      },
    });
    expect((sent[0]?.body as { message: string }).message).toBe(
      'CREATE ConfigMap a cm: rule failed at spec.patch[0].value [KM3002]: fail: boom',
    );
    expect((sent[2]?.body as { message: string }).message).toBe(
      'CREATE ConfigMap a cm: rule failed at spec.patch[0].value [KM3002] (failure policy Fail: request refused): fail: boom',
    );
  });
});
