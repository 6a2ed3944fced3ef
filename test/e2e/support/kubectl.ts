import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { inject } from 'vitest';

export interface KubectlOptions {
  /** Written to kubectl's stdin (use with `-f -`). */
  readonly input?: string;
  readonly timeoutMs?: number;
}

/** The kubeconfig provided by test/e2e/global-setup.ts. */
export function kubeconfig(): string {
  return inject('kubeconfig');
}

/**
 * The admin kubeconfig, impersonating `user` for every request made with it (the API server then
 * checks that user's permissions): how the tests run the operator as its service account.
 */
export function impersonating(user: string): string {
  const config = load(readFileSync(kubeconfig(), 'utf8')) as {
    users: { user: Record<string, unknown> }[];
  };
  for (const entry of config.users) entry.user.as = user;
  const path = join(mkdtempSync(join(tmpdir(), 'e2e-as-')), 'kubeconfig');
  writeFileSync(path, dump(config));
  return path;
}

/** Runs kubectl against the e2e cluster and resolves its stdout; rejects with stderr on failure. */
export function kubectl(args: readonly string[], options: KubectlOptions = {}): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = execFile(
      'kubectl',
      [...args],
      {
        env: { ...process.env, KUBECONFIG: kubeconfig() },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
        } else {
          resolve(stdout);
        }
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** `kubectl apply -f -` with a JSON manifest. */
export function kubectlApply(manifest: object): Promise<string> {
  return kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
}

/** Runs kubectl with `-o json` and parses the result. */
export async function kubectlJson(args: readonly string[]): Promise<unknown> {
  return JSON.parse(await kubectl([...args, '-o', 'json'])) as unknown;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  description: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) {
        return value;
      }
    } catch (error: unknown) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${String(timeoutMs)} ms waiting for ${description}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The API server URL and CA of the e2e cluster's kubeconfig (for calls without kubectl). */
export function clusterEndpoint(): { server: string; caPem: string } {
  const config = load(readFileSync(kubeconfig(), 'utf8')) as {
    clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
  };
  const cluster = config.clusters?.[0]?.cluster;
  const server = cluster?.server;
  const ca = cluster?.['certificate-authority-data'];
  if (server === undefined || ca === undefined) {
    throw new Error(`kubeconfig ${kubeconfig()} has no server with certificate-authority-data`);
  }
  return { server, caPem: Buffer.from(ca, 'base64').toString('utf8') };
}

/**
 * Deletes namespaces without waiting, then force-deletes their Pods: with no kubelet to confirm
 * a scheduled Pod's graceful deletion it would stay Terminating, and so would its namespace. (A
 * terminating namespace accepts no new Pods, so no controller recreates them.)
 */
export async function deleteNamespacesNow(names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await kubectl(['delete', 'namespace', ...names, '--wait=false', '--ignore-not-found']);
  for (const name of names) {
    await kubectl([
      'delete',
      'pods',
      '--all',
      '-n',
      name,
      '--force',
      '--grace-period=0',
      '--ignore-not-found',
    ]);
  }
}
