/**
 * The objects of the consistency test: Deployments of 1 to 250 containers and one of about
 * 1 MB, built so that every README example and sample rule that targets a Deployment applies.
 */
import type { JsonObject } from '../../../src/engine/json.js';

/** Container counts of the Deployments (issue 27: 1 to 250). */
export const SIZES = [1, 10, 20, 30, 100, 200, 250] as const;

/** Bytes the large object is built to, at least. */
export const LARGE_BYTES = 1024 * 1024;

/** The namespaces the example rules live in: the README's and the samples'. */
export const NAMESPACES = ['shop', 'default'] as const;

export interface TestObject {
  readonly name: string;
  readonly namespace: string;
  /** Containers whose image is a `bitnami/` one (the README's mirror rule rewrites them). */
  readonly bitnami: number;
  readonly object: JsonObject;
}

function container(i: number, envBytes: number): JsonObject {
  const env =
    envBytes === 0
      ? []
      : Array.from({ length: 8 }, (_, k) => ({
          name: `VAR_${String(k)}`,
          value: `${String(i)}-${String(k)}-${'v'.repeat(Math.ceil(envBytes / 8))}`,
        }));
  return {
    name: `c${String(i)}`,
    image: `bitnami/app-${String(i)}:1.${String(i)}`,
    ...(env.length === 0 ? {} : { env }),
  };
}

function deployment(namespace: string, name: string, containers: number, envBytes = 0): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace,
      labels: { app: name, team: 'storefront' },
      annotations: { 'samples.kubemod.io/inject-log-shipper': 'true' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: Array.from({ length: containers }, (_, i) => container(i, envBytes)),
        },
      },
    },
  };
}

/** Every object of the test, in every namespace. */
export function testObjects(): TestObject[] {
  const out: TestObject[] = [];
  for (const namespace of NAMESPACES) {
    for (const size of SIZES) {
      const name = `web-${String(size)}`;
      out.push({ name, namespace, bitnami: size, object: deployment(namespace, name, size) });
    }
    // 250 containers of 8 variables of ~4 KB together: about 1 MB of JSON.
    const large = deployment(namespace, 'web-large', 250, 4200);
    if (JSON.stringify(large).length < LARGE_BYTES) throw new Error('large object too small');
    out.push({ name: 'web-large', namespace, bitnami: 250, object: large });
  }
  return out;
}
