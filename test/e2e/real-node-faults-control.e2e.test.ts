import { X509Certificate } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { requestApiserverRestart } from './harness-control.js';
import { deleteNamespacesNow, kubectl, kubectlJson, waitFor } from './support/kubectl.js';
import { createFloodNamespace, DRAGNET, report, startFlood } from './support/fault-scenario.js';
import { operatorPods } from './support/real-node-admission.js';
import { causeCounts, webhookFailuresSince } from './support/fail-open-log.js';
import {
  installReleasedBundle,
  SYSTEM_NAMESPACE,
  waitForOperatorReady,
  type InstalledBundle,
} from './support/real-node.js';

// Fault figures (issue 36), control-plane side: (d) the harness's kube-apiserver is killed and
// started again during the stream, (e) the webhook's certificate Secret is deleted during the
// stream. The bundle as released, two replicas, dragnet failurePolicy Ignore (as shipped).

const CERT_SECRET = 'kubemod-webhook-server-cert';
const WEBHOOK_PORT = 9443;
let bundle: InstalledBundle;
let ns: string;

interface Secret {
  metadata: { uid: string };
  data?: Record<string, string>;
}

/** The serving certificate a replica presents on its webhook port (straight to the Pod IP). */
function servedCertificate(podIp: string): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: podIp, port: WEBHOOK_PORT, rejectUnauthorized: false, timeout: 5_000 },
      () => {
        const cert = socket.getPeerX509Certificate();
        socket.destroy();
        if (cert === undefined) reject(new Error(`${podIp}: no certificate`));
        else resolve(cert);
      },
    );
    socket.on('timeout', () => socket.destroy(new Error(`${podIp}: TLS timeout`)));
    socket.on('error', reject);
  });
}

describe('the released bundle under control-plane faults', () => {
  beforeAll(async () => {
    bundle = await installReleasedBundle();
    await waitForOperatorReady();
    ns = await createFloodNamespace();
  });

  afterAll(async () => {
    await deleteNamespacesNow([ns]);
    await bundle.stopRegistry();
  });

  it('(d) lets nothing through while the API server is killed and restarted', async () => {
    const load = startFlood(ns);
    await sleep(5_000);
    const started = Date.now();
    // Down for 2 s, then started with the same arguments; resolves once /readyz answers.
    await requestApiserverRestart(inject('harnessControl'), 2_000);
    const apiserverBackMs = Date.now() - started;
    await waitForOperatorReady();
    // Refused again once it is back: the webhook is reached through the Service as before.
    const afterRestart = Date.now();
    await sleep(10_000);
    const figures = await load.stop();
    const failures = webhookFailuresSince(DRAGNET, started);
    report('API server restart', figures, {
      apiserverBackMs,
      failedCalls: causeCounts(failures),
    });
    expect(figures.through, JSON.stringify(failures.slice(0, 3))).toBe(0);
    // Requests fail only while the API server is away (connection refused, or its own 5xx).
    for (const sentAt of figures.failedSentAt) {
      expect(sentAt).toBeLessThanOrEqual(afterRestart);
    }
    expect(figures.refused).toBeGreaterThan(0);
  });

  it('(e) lets nothing through while the certificate Secret is deleted', async () => {
    const before = (await kubectlJson([
      'get',
      'secret',
      CERT_SECRET,
      '-n',
      SYSTEM_NAMESPACE,
    ])) as Secret;
    const load = startFlood(ns);
    await sleep(5_000);
    const started = Date.now();
    await kubectl(['delete', 'secret', CERT_SECRET, '-n', SYSTEM_NAMESPACE]);
    // The leader writes a new certificate (after publishing a caBundle that trusts old and new),
    // and every replica serves what the Secret holds.
    const recreated = await waitFor(
      'a new certificate Secret',
      async () => {
        // kubectl fails while the Secret is absent; waitFor tries again.
        const s = (await kubectlJson([
          'get',
          'secret',
          CERT_SECRET,
          '-n',
          SYSTEM_NAMESPACE,
        ])) as Secret;
        return s.metadata.uid !== before.metadata.uid && s.data !== undefined ? s : undefined;
      },
      60_000,
      250,
    );
    const secretBackMs = Date.now() - started;
    const newCert = new X509Certificate(
      Buffer.from(recreated.data?.['tls.crt'] ?? '', 'base64').toString('utf8'),
    );
    await waitFor(
      'both replicas to serve the new certificate',
      async () => {
        const pods = await operatorPods();
        const served = await Promise.all(pods.map((p) => servedCertificate(p.status.podIP ?? '')));
        return pods.length === 2 && served.every((c) => c.fingerprint256 === newCert.fingerprint256)
          ? true
          : undefined;
      },
      60_000,
      500,
    );
    const servedMs = Date.now() - started;
    await sleep(5_000);
    const figures = await load.stop();
    const failures = webhookFailuresSince(DRAGNET, started);
    report('certificate Secret deleted', figures, {
      secretBackMs,
      bothServeNewMs: servedMs,
      failedCalls: causeCounts(failures),
    });
    expect(figures.through, JSON.stringify(failures.slice(0, 3))).toBe(0);
    expect(failures, JSON.stringify(failures.slice(0, 3))).toEqual([]);
    expect(figures.failed, figures.samples.join('\n')).toBe(0);
    expect(figures.refused).toBeGreaterThan(0);
  });
});
