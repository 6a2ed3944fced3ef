import { request } from 'node:https';
import type { ApiCredentials } from '../../cluster/api-client.js';

// Counts the writes to a set of objects as the API server reports them: a watch from a given
// resourceVersion sees every change, in order, each with its new resourceVersion. An object
// written twice shows two MODIFIED events, one lost write none.

export interface WatchedWrites {
  /** MODIFIED events per object name, each with its new resourceVersion. */
  readonly modified: ReadonlyMap<string, readonly string[]>;
  /** ADDED and DELETED events (none expected after the watch starts). */
  readonly others: readonly string[];
  stop(): void;
}

interface WatchEvent {
  type: string;
  object?: { metadata?: { name?: string; resourceVersion?: string } };
}

/** Watches `collectionPath` (e.g. /api/v1/namespaces/x/configmaps?labelSelector=…) from `rv`. */
export function watchWrites(
  api: ApiCredentials,
  collectionPath: string,
  rv: string,
): WatchedWrites {
  const modified = new Map<string, string[]>();
  const others: string[] = [];
  const separator = collectionPath.includes('?') ? '&' : '?';
  let buffered = '';
  let stopped = false;
  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    const event = JSON.parse(line) as WatchEvent;
    const name = event.object?.metadata?.name ?? '';
    const version = event.object?.metadata?.resourceVersion ?? '';
    if (event.type === 'MODIFIED') {
      modified.set(name, [...(modified.get(name) ?? []), version]);
    } else {
      others.push(`${event.type} ${name}`);
    }
  };
  const req = request(
    `${api.server}${collectionPath}${separator}watch=true&resourceVersion=${rv}&timeoutSeconds=1800`,
    {
      ca: api.caPem,
      ...(api.certPem === undefined ? {} : { cert: api.certPem }),
      ...(api.keyPem === undefined ? {} : { key: api.keyPem }),
      headers: { accept: 'application/json' },
    },
    (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        lines.forEach(onLine);
      });
    },
  );
  req.on('error', (error: Error) => {
    if (!stopped) others.push(`watch error: ${error.message}`);
  });
  req.end();
  return {
    modified,
    others,
    stop(): void {
      stopped = true;
      req.destroy();
    },
  };
}
