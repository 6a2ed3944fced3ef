import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_LOOKUP_KINDS,
  collectionPath,
  parseLookupKinds,
  type LookupKind,
} from './lookup-kinds.js';

const summary = (k: LookupKind): string =>
  `${k.kind}${k.metadataOnly ? ':metadata' : ''}${k.labelSelector === '' ? '' : `@${k.labelSelector}`}`;

describe('parseLookupKinds', () => {
  it('defaults to workloads and ConfigMaps, ReplicaSets and Jobs as metadata, no Secrets', () => {
    const kinds = parseLookupKinds(undefined);
    expect(kinds.map(summary)).toEqual([
      'ConfigMap',
      'Deployment',
      'ReplicaSet:metadata',
      'StatefulSet',
      'DaemonSet',
      'Job:metadata',
      'CronJob',
    ]);
    expect(kinds.some((k) => k.kind === 'Secret')).toBe(false);
    expect(parseLookupKinds(DEFAULT_LOOKUP_KINDS)).toEqual(kinds);
  });

  it.each([
    ['', []],
    ['none', []],
    ['Secret', ['Secret']],
    [' ConfigMap@team=a&!legacy , Job:metadata', ['ConfigMap@team=a,!legacy', 'Job:metadata']],
    ['ConfigMap@lookup.kubemod.io/enabled=true', ['ConfigMap@lookup.kubemod.io/enabled=true']],
    ['Deployment:metadata@tier!=db&app', ['Deployment:metadata@tier!=db,app']],
  ])('reads %j', (raw, expected) => {
    expect(parseLookupKinds(raw).map(summary)).toEqual(expected);
  });

  it.each([
    ['Widget', /unknown kind "Widget"; known kinds: ConfigMap, Secret/],
    ['ConfigMap,ConfigMap', /ConfigMap is listed twice/],
    ['ConfigMap:full', /unknown modifier :full/],
    ['ConfigMap@', /empty label selector/],
    ['ConfigMap@a b=c', /label selector term "a b=c"/],
    ['ConfigMap@!a=b', /!key takes no value/],
    ['ConfigMap@a=b c', /"b c" is not a label value/],
    ['ConfigMap,,Job', /empty entry/],
    [Array.from({ length: 33 }, () => 'ConfigMap').join(','), /at most 32 kinds/],
  ])('refuses %j naming the flag and the entry', (raw, reason) => {
    expect(() => parseLookupKinds(raw)).toThrow(/^--lookup-kinds/);
    expect(() => parseLookupKinds(raw)).toThrow(reason);
  });

  it('never throws anything but a flag error on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (raw) => {
        try {
          const kinds = parseLookupKinds(raw);
          for (const k of kinds) expect(k.labelSelector).not.toMatch(/[&@\s]/);
        } catch (err) {
          expect(String(err)).toMatch(/--lookup-kinds/);
        }
      }),
    );
  });

  it('lists and watches the collection across namespaces', () => {
    const [cm, rs] = parseLookupKinds('ConfigMap,ReplicaSet');
    expect(cm && collectionPath(cm)).toBe('/api/v1/configmaps');
    expect(rs && collectionPath(rs)).toBe('/apis/apps/v1/replicasets');
  });
});
