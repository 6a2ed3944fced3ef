import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// The e2e tests run in vitest workers; the control plane belongs to the globalSetup process that
// started it (and stops it, with everything it spawned). A fault test that restarts the API
// server asks that process to do it, over HTTP on loopback with a random token, so the new
// kube-apiserver is the harness's own child and its teardown still covers it.

export interface HarnessControl {
  /** `http://127.0.0.1:<port>/<token>` */
  readonly url: string;
  close(): Promise<void>;
}

export interface HarnessActions {
  /** SIGKILL kube-apiserver, wait `downMs`, start it again, wait for /readyz. */
  restartKubeApiserver(downMs: number): Promise<void>;
}

/** Serves POST /<token>/restart-kube-apiserver?downMs=N (answers once the API server is ready). */
export async function startHarnessControl(actions: HarnessActions): Promise<HarnessControl> {
  const token = randomBytes(16).toString('hex');
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'POST' || url.pathname !== `/${token}/restart-kube-apiserver`) {
      res.writeHead(404).end();
      return;
    }
    const downMs = Math.min(60_000, Math.max(0, Number(url.searchParams.get('downMs') ?? '0')));
    actions.restartKubeApiserver(downMs).then(
      () => res.writeHead(204).end(),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/${token}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** From a test: restart the harness's kube-apiserver (see {@link startHarnessControl}). */
export async function requestApiserverRestart(controlUrl: string, downMs: number): Promise<void> {
  const response = await fetch(`${controlUrl}/restart-kube-apiserver?downMs=${String(downMs)}`, {
    method: 'POST',
    signal: AbortSignal.timeout(180_000),
  });
  if (response.status !== 204) {
    throw new Error(
      `kube-apiserver restart failed: ${String(response.status)} ${await response.text()}`,
    );
  }
}
