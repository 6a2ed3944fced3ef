import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import { MAX_PROBLEMS, newObjectProblems, objectProblems } from './object-checks.js';

const configMap = (metadata: JsonObject): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'web', namespace: 'shop', ...metadata },
});

const deployment = (container: JsonObject, replicas: unknown = 2): JsonObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1', ...container }] },
      },
    },
  }) as JsonObject;

describe('objectProblems: what the API server would refuse (issue 39)', () => {
  it.each<[string, JsonObject, string]>([
    [
      'a label value <no value>',
      configMap({ labels: { team: '<no value>' } }),
      'metadata.labels.team: "<no value>" is not a valid label value',
    ],
    [
      'a label turned into a number',
      configMap({ labels: { 'ns-id': 34 } }),
      'metadata.labels.ns-id: must be a string, got the number 34; a template',
    ],
    [
      'a label value of 64 characters',
      configMap({ labels: { a: 'x'.repeat(64) } }),
      'metadata.labels.a: "xxx',
    ],
    [
      'a label key with a space',
      configMap({ labels: { 'my team': 'a' } }),
      'metadata.labels.my team: the label key "my team" is not a valid name',
    ],
    [
      'a label key with an upper-case prefix',
      configMap({ labels: { 'Example.com/a': 'b' } }),
      'has a prefix that is not a DNS subdomain',
    ],
    [
      'an annotation turned into a boolean',
      configMap({ annotations: { 'example.com/on': true } }),
      'metadata.annotations.example.com/on: must be a string, got the boolean true',
    ],
    [
      'a namespace <no value>',
      configMap({ namespace: '<no value>' }),
      'metadata.namespace: "<no value>" is not a valid namespace name (<no value> is what',
    ],
    ['a name that is a number', configMap({ name: 7 }), 'metadata.name: must be a string'],
    [
      'replicas as a string',
      deployment({}, '3'),
      'spec.replicas: must be an integer, got the string "3"',
    ],
    [
      'an env value as a number',
      deployment({ env: [{ name: 'PORT', value: 8080 }] }),
      'spec.template.spec.containers[0].env[0].value: must be a string, got the number 8080',
    ],
    [
      'a containerPort as a string',
      deployment({ ports: [{ containerPort: '80' }] }),
      'spec.template.spec.containers[0].ports[0].containerPort: must be an integer',
    ],
    [
      'a containerPort out of range',
      deployment({ ports: [{ containerPort: 70000 }] }),
      '70000 is not a port',
    ],
    ['an image as a number', deployment({ image: 1.5 }), 'containers[0].image: must be a string'],
  ])('finds %s', (_name, object, expected) => {
    const problems = objectProblems(object);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(expected);
  });

  it.each<[string, JsonObject]>([
    [
      'valid labels and annotations',
      configMap({
        labels: { 'app.kubernetes.io/name': 'web', empty: '' },
        annotations: { 'a/b': '{"x":1}' },
      }),
    ],
    [
      'a valid Deployment',
      deployment({ ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }),
    ],
    ['no metadata', { kind: 'Thing' }],
  ])('finds nothing in %s', (_name, object) => {
    expect(objectProblems(object)).toEqual([]);
  });

  it('lists at most MAX_PROBLEMS', () => {
    const labels = Object.fromEntries(
      Array.from({ length: MAX_PROBLEMS + 10 }, (_, i) => [`l${String(i)}`, i]),
    );
    expect(objectProblems(configMap({ labels }))).toHaveLength(MAX_PROBLEMS);
  });

  it('newObjectProblems keeps only what the patch introduced', () => {
    const before = configMap({ labels: { old: 1 } });
    const after = configMap({ labels: { old: 1, team: '<no value>' } });
    expect(newObjectProblems(before, after)).toEqual([
      expect.stringContaining('metadata.labels.team:'),
    ]);
    expect(newObjectProblems(before, before)).toEqual([]);
  });
});
