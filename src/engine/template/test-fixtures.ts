/** A KubeMod-like render context shared by the template tests. */
export function sampleContext(): Record<string, unknown> {
  return {
    Namespace: 'prod',
    SelectedItem: { name: 'app', image: 'docker.io/library/nginx:1.19' },
    SelectKeyParts: [1, 'env'],
    Target: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web-1',
        labels: { app: 'web', tier: 'frontend' },
        annotations: { 'example.com/owner': 'team-a' },
        empty: {},
        nothing: null,
      },
      spec: {
        replicas: 3,
        big: 1000000,
        ratio: 0.25,
        enabled: true,
        externalIPs: ['1.2.3.4', '5.6.7.8'],
        containers: [
          { name: 'nginx', image: 'nginx:1.19', ports: [{ containerPort: 8080 }] },
          { name: 'sidecar', image: 'envoy:1.0', ports: [] },
        ],
      },
      syntheticRefs: {
        node: { metadata: { labels: { 'topology.kubernetes.io/region': 'eu-west-1' } } },
      },
    },
  };
}
