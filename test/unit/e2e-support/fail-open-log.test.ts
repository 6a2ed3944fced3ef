import { describe, expect, it } from 'vitest';
import { failCause, parseWebhookFailures } from '../../e2e/support/fail-open-log.js';

// The fault tests attribute every admitted-but-rejected object to a webhook call the API server
// logged as failed; these are kube-apiserver v1.33's klog lines for such calls.

const POST =
  'failed calling webhook "dragnet.kubemod.io": failed to call webhook: Post "https://kubemod-webhook-service.kubemod-system.svc:443/dragnet-webhook?timeout=10s"';

describe('parseWebhookFailures', () => {
  it('reads time, webhook, policy and cause of each failed call, and nothing else', () => {
    const log = [
      'I1128 04:27:01.000001  812 controller.go:667] quota admission added evaluator for: leases',
      `W1128 04:27:12.345678  812 dispatcher.go:210] Failed calling webhook, failing open dragnet.kubemod.io: ${POST}: dial tcp 10.215.0.12:443: connect: connection refused`,
      `W1128 04:27:13.5  812 dispatcher.go:225] Failed calling webhook, failing closed dragnet.kubemod.io: ${POST}: EOF`,
      `E1128 04:27:14.000000  812 dispatcher.go:210] Failed calling webhook, failing open podbinding.kubemod.io: ${POST}: read tcp 10.213.0.1:5123->10.215.0.12:443: read: connection reset by peer`,
    ].join('\n');
    const failures = parseWebhookFailures(log, 2026);
    expect(
      failures.map(({ at, webhook, failing, cause }) => ({ at, webhook, failing, cause })),
    ).toEqual([
      {
        at: Date.UTC(2026, 10, 28, 4, 27, 12, 345),
        webhook: 'dragnet.kubemod.io',
        failing: 'open',
        cause: 'connection refused',
      },
      {
        at: Date.UTC(2026, 10, 28, 4, 27, 13, 500),
        webhook: 'dragnet.kubemod.io',
        failing: 'closed',
        cause: 'EOF',
      },
      {
        at: Date.UTC(2026, 10, 28, 4, 27, 14, 0),
        webhook: 'podbinding.kubemod.io',
        failing: 'open',
        cause: 'connection reset',
      },
    ]);
  });

  it.each([
    ['dial tcp 10.0.0.1:443: connect: connection refused', 'connection refused'],
    ['read: connection reset by peer', 'connection reset'],
    ['Post "https://x/y": EOF', 'EOF'],
    ['context deadline exceeded (Client.Timeout exceeded while awaiting headers)', 'timeout'],
    ['tls: failed to verify certificate: x509: certificate signed by unknown authority', 'TLS'],
    ['service "kubemod-webhook-service" not found', 'no endpoints'],
    ['something else', 'other'],
  ])('classifies %s as %s', (error, cause) => {
    expect(failCause(error)).toBe(cause);
  });
});
