import { randomBytes } from 'node:crypto';
import {
  MODRULE_API_VERSION,
  MODRULE_GROUP,
  MODRULE_KIND,
  MODRULE_PLURAL,
  MODRULE_VERSION,
} from '../../api/index.js';
import { isJsonObject, type JsonObject } from '../../engine/json.js';
import { describeError } from '../../errors/catalog.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { AuditApi, Discovery, DiscoveryProblem, RuleReporter } from '../run/audit-api.js';
import { mapBounded } from '../run/bounded.js';
import {
  apiVersionOf,
  collectionPath,
  parseResourceList,
  preferredVersions,
  type DiscoveredGroupVersion,
} from '../../kube/target-resources.js';

/** The field manager of apply-to-existing's updates. */
export const APPLY_EXISTING_FIELD_MANAGER = 'kubemod-apply-to-existing';

/** Discovery requests in flight at once (one per API group). */
const DISCOVERY_CONCURRENCY = 8;

function nameOf(object: JsonObject): string {
  const metadata = object.metadata;
  return isJsonObject(metadata) && typeof metadata.name === 'string' ? metadata.name : '';
}

function namespaceOf(object: JsonObject): string | undefined {
  const metadata = object.metadata;
  return isJsonObject(metadata) && typeof metadata.namespace === 'string'
    ? metadata.namespace
    : undefined;
}

/** The audit's Kubernetes calls over a KubeClient. */
export function kubeAuditApi(client: KubeClient): AuditApi {
  return {
    async discover(wantGroup): Promise<Discovery> {
      const found: DiscoveredGroupVersion[] = [];
      const problems: DiscoveryProblem[] = [];
      const read = async (group: string, version: string): Promise<void> => {
        const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
        try {
          const doc = await client.request({ method: 'GET', path });
          found.push(parseResourceList(group, version, doc));
        } catch (err) {
          problems.push({
            groupVersion: group === '' ? version : `${group}/${version}`,
            reason: describeError(err),
          });
        }
      };
      const groups = preferredVersions(await client.request({ method: 'GET', path: '/apis' }));
      const wanted = [
        ...(wantGroup('') ? [{ group: '', version: 'v1' }] : []),
        ...groups.filter((g) => wantGroup(g.group)),
      ];
      await mapBounded(wanted, DISCOVERY_CONCURRENCY, (g) => read(g.group, g.version));
      // Requests finish in any order; keep discovery's own order (core first, then /apis).
      const order = new Map(wanted.map((g, i) => [g.group, i]));
      found.sort((a, b) => (order.get(a.group) ?? 0) - (order.get(b.group) ?? 0));
      return { groupVersions: found, problems };
    },

    async listPage(target, namespace, limit, continueToken) {
      const result = await client.request({
        method: 'GET',
        path: collectionPath(target, namespace),
        query: { limit, continue: continueToken },
      });
      const items = Array.isArray(result.items) ? result.items.filter(isJsonObject) : [];
      const metadata = isJsonObject(result.metadata) ? result.metadata : {};
      const next =
        typeof metadata.continue === 'string' && metadata.continue !== ''
          ? metadata.continue
          : undefined;
      const apiVersion = apiVersionOf(target);
      return {
        // Lists leave apiVersion and kind out of their items; the webhook sees them.
        items: items.map((item) => ({ apiVersion, kind: target.kind, ...item })),
        continueToken: next,
      };
    },

    async get(target, namespace, name) {
      const object = await client.request({
        method: 'GET',
        path: `${collectionPath(target, namespace)}/${encodeURIComponent(name)}`,
      });
      return { apiVersion: apiVersionOf(target), kind: target.kind, ...object };
    },

    async update(target, object) {
      const path = `${collectionPath(target, namespaceOf(object))}/${encodeURIComponent(nameOf(object))}`;
      // Names the client in the API server's audit log and field management.
      const stored = await client.request({
        method: 'PUT',
        path,
        query: { fieldManager: APPLY_EXISTING_FIELD_MANAGER },
        body: object,
      });
      return { apiVersion: apiVersionOf(target), kind: target.kind, ...stored };
    },
  };
}

function eventTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** ModRule status patches and Events over a KubeClient. */
export function kubeRuleReporter(
  client: KubeClient,
  now: () => number,
  component = 'kubemod-ts',
): RuleReporter {
  return {
    async patchStatus(namespace, name, status) {
      await client.request({
        method: 'PATCH',
        path: `/apis/${MODRULE_GROUP}/${MODRULE_VERSION}/namespaces/${namespace}/${MODRULE_PLURAL}/${name}/status`,
        body: { status },
        contentType: 'application/merge-patch+json',
      });
    },
    async event(rule, event) {
      const time = eventTime(now());
      await client.request({
        method: 'POST',
        path: `/api/v1/namespaces/${rule.namespace}/events`,
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: {
            name: `${rule.name}.${randomBytes(8).toString('hex')}`,
            namespace: rule.namespace,
          },
          involvedObject: {
            apiVersion: MODRULE_API_VERSION,
            kind: MODRULE_KIND,
            name: rule.name,
            namespace: rule.namespace,
            ...(rule.uid === undefined ? {} : { uid: rule.uid }),
          },
          reason: event.reason,
          message: event.message.slice(0, 1024),
          type: event.type,
          source: { component },
          reportingComponent: component,
          firstTimestamp: time,
          lastTimestamp: time,
          count: 1,
        },
      });
    },
  };
}
