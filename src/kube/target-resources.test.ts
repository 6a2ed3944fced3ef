import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import {
  collectionPath,
  DEFAULT_DRAGNET_RULES,
  dragnetRulesOf,
  parseResourceList,
  preferredVersions,
  resourceLabel,
  targetResources,
  type DiscoveredGroupVersion,
} from './target-resources.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const core = parseResourceList('', 'v1', {
  resources: [
    { name: 'pods', kind: 'Pod', namespaced: true, verbs: ['get', 'list', 'update'] },
    { name: 'pods/status', kind: 'Pod', namespaced: true, verbs: ['get', 'update'] },
    { name: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['get', 'list'] },
    { name: 'bindings', kind: 'Binding', namespaced: true, verbs: ['create'] },
    { name: 'events', kind: 'Event', namespaced: true, verbs: ['list'] },
  ],
});
const apps: DiscoveredGroupVersion = parseResourceList('apps', 'v1', {
  resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true, verbs: ['list'] }],
});

describe('target resources', () => {
  it("keeps the fallback list identical to the bundle's dragnet webhook", () => {
    const config = load(
      readFileSync(`${repoRoot}/config/webhook/mutating-webhook-configuration.yaml`, 'utf8'),
    ) as JsonObject;
    expect(dragnetRulesOf(config)).toEqual(DEFAULT_DRAGNET_RULES);
  });

  it('lists the listable top-level resources the rules cover, sorted by group and resource', () => {
    const targets = targetResources(DEFAULT_DRAGNET_RULES, [apps, core]);
    expect(targets.map(resourceLabel)).toEqual(['namespaces', 'pods', 'deployments.apps']);
    expect(targets[1]).toEqual({
      group: '',
      version: 'v1',
      resource: 'pods',
      kind: 'Pod',
      namespaced: true,
    });
  });

  it('honours apiGroups, scope, wildcards and the UPDATE operation', () => {
    const rule = { apiGroups: ['apps'], resources: ['*'], operations: ['UPDATE'], scope: '*' };
    expect(targetResources([rule], [core, apps]).map(resourceLabel)).toEqual(['deployments.apps']);
    const cluster = { apiGroups: ['*'], resources: ['*'], operations: ['*'], scope: 'Cluster' };
    expect(targetResources([cluster], [core, apps]).map(resourceLabel)).toEqual(['namespaces']);
    const createOnly = { ...cluster, scope: '*', operations: ['CREATE'] };
    expect(targetResources([createOnly], [core, apps])).toEqual([]);
    const sub = { apiGroups: [''], resources: ['pods/*'], operations: ['UPDATE'], scope: '*' };
    expect(targetResources([sub], [core]).map(resourceLabel)).toEqual(['pods']);
  });

  it('reads preferred versions and builds collection paths', () => {
    expect(
      preferredVersions({
        groups: [
          { name: 'apps', preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } },
          { name: 'broken' },
        ],
      }),
    ).toEqual([{ group: 'apps', version: 'v1' }]);
    const deployments = targetResources(DEFAULT_DRAGNET_RULES, [apps])[0];
    if (deployments === undefined) throw new Error('no target');
    expect(collectionPath(deployments, 'shop')).toBe('/apis/apps/v1/namespaces/shop/deployments');
    expect(collectionPath(deployments, undefined)).toBe('/apis/apps/v1/deployments');
    const ns = targetResources(DEFAULT_DRAGNET_RULES, [core])[0];
    if (ns === undefined) throw new Error('no target');
    expect(collectionPath(ns, 'ignored-for-cluster-scoped')).toBe('/api/v1/namespaces');
  });

  it('returns undefined for a configuration without the dragnet webhook', () => {
    expect(dragnetRulesOf({ webhooks: [{ name: 'other' }] })).toBeUndefined();
  });
});
