// Writes one chart template from the parsed objects of one config/ file: each place a chart value
// controls is replaced, on a deep copy of the parsed object, by a slot (scripts/chart/
// template-slots.ts); everything else is rendered exactly as config/ has it.
import { IGNORE_LABEL } from '../../src/audit/run/scope-plan.js';
import type { ChartSource } from './chart-sources.js';
import {
  dragnetWebhook,
  envEntry,
  isMapping,
  LOG_LEVEL_ENV,
  mappingAt,
  operatorContainer,
  webhooks,
  type Mapping,
  type SourcedObject,
} from './config-objects.js';
import { createTemplateSlots, dumpYaml, indented, type TemplateSlots } from './template-slots.js';

const RELEASE_NAMESPACE = '{{ .Release.Namespace }}';
const RESOURCE_POLICY = 'helm.sh/resource-policy';

/** Every `namespace: <systemNamespace>` (metadata, subjects, service references) follows the release. */
function releaseNamespace(node: unknown, systemNamespace: string, slots: TemplateSlots): void {
  if (Array.isArray(node)) {
    for (const item of node) releaseNamespace(item, systemNamespace, slots);
    return;
  }
  if (!isMapping(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'namespace' && value === systemNamespace) {
      node[key] = slots.inline(RELEASE_NAMESPACE);
    } else {
      releaseNamespace(value, systemNamespace, slots);
    }
  }
}

/**
 * Text config/ means literally but Helm would read as a template action (Prometheus alert
 * templates such as `{{ $labels.rule }}`, Grafana legends such as `{{rule}}`): each `{{` and `}}`
 * becomes an action printing it, so Helm renders the text as config/ has it.
 */
export function escapeTemplateText(text: string): string {
  return text.replace(/\{\{|\}\}/g, (braces) => `{{ "${braces}" }}`);
}

/** A deep copy of a parsed object with every string escaped (other values, e.g. dates, cloned). */
function escapeStrings(node: unknown): unknown {
  if (typeof node === 'string') return escapeTemplateText(node);
  if (Array.isArray(node)) return node.map(escapeStrings);
  if (isMapping(node) && Object.getPrototypeOf(node) === Object.prototype) {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, escapeStrings(v)]));
  }
  return structuredClone(node);
}

/** The chart's standard labels first, then the object's own, then those of `extraValuePath`. */
function labels(
  found: SourcedObject,
  copy: Mapping,
  slots: TemplateSlots,
  extraValuePath: string | undefined,
): void {
  const metadata = mappingAt(found, copy, ['metadata']);
  const own = metadata.labels ?? {};
  metadata.labels = slots.block((indent) => {
    const pad = ' '.repeat(indent);
    return (
      `\n${pad}{{- include "kubemod-ts.labels" . | nindent ${String(indent)} }}` +
      (isMapping(own) && Object.keys(own).length > 0 ? indented(dumpYaml(own), indent) : '') +
      (extraValuePath === undefined
        ? ''
        : `\n${pad}{{- with .Values.${extraValuePath} }}\n${pad}{{- toYaml . | nindent ${String(indent)} }}\n${pad}{{- end }}`)
    );
  });
}

function deployment(found: SourcedObject, copy: Mapping, slots: TemplateSlots): void {
  mappingAt(found, copy, ['spec']).replicas = slots.inline('{{ .Values.replicas }}');
  const container = operatorContainer({ source: found.source, object: copy });
  container.image = slots.inline('{{ include "kubemod-ts.image" . | quote }}');
  container.imagePullPolicy = slots.inline('{{ .Values.image.pullPolicy }}');
  container.resources = slots.block(
    (indent) =>
      `\n${' '.repeat(indent)}{{- toYaml .Values.resources | nindent ${String(indent)} }}`,
  );
  envEntry(found, container, LOG_LEVEL_ENV).value = slots.inline('{{ .Values.logLevel | quote }}');
  const args: unknown = container.args ?? [];
  container.args = slots.block((indent) => {
    const pad = ' '.repeat(indent);
    return [
      indented(dumpYaml(args), indent),
      `\n${pad}{{- include "kubemod-ts.operatorArgs" . | nindent ${String(indent)} }}`,
    ].join('');
  });
}

/** Webhooks that skip ignore-labelled namespaces also skip the namespaces named in the values. */
function ignoredNamespaces(found: SourcedObject, copy: Mapping, slots: TemplateSlots): void {
  for (const hook of webhooks({ source: found.source, object: copy })) {
    const selector = hook.namespaceSelector;
    const expressions = isMapping(selector) ? selector.matchExpressions : undefined;
    if (!Array.isArray(expressions)) continue;
    if (!expressions.some((e) => isMapping(e) && e.key === IGNORE_LABEL)) continue;
    (selector as Mapping).matchExpressions = slots.block(
      (indent) =>
        indented(dumpYaml(expressions), indent) +
        `\n${' '.repeat(indent)}{{- include "kubemod-ts.ignoredNamespaces" . | nindent ${String(indent)} }}`,
    );
  }
}

/**
 * With webhook.urlBase set, each webhook calls <urlBase><path> instead of the Service (an operator
 * running outside the cluster, started with the same --webhook-url-base).
 */
function webhookUrls(
  found: SourcedObject,
  copy: Mapping,
  systemNamespace: string,
  slots: TemplateSlots,
): void {
  for (const hook of webhooks({ source: found.source, object: copy })) {
    const clientConfig = hook.clientConfig;
    const service = isMapping(clientConfig) ? clientConfig.service : undefined;
    if (!isMapping(service) || typeof service.path !== 'string') continue;
    const inner = createTemplateSlots();
    releaseNamespace(service, systemNamespace, inner);
    const serviceText = inner.emit({ service });
    const url = `{{ printf "%s%s" (trimSuffix "/" .Values.webhook.urlBase) ${JSON.stringify(service.path)} | quote }}`;
    hook.clientConfig = slots.block((indent) => {
      const pad = ' '.repeat(indent);
      return [
        `\n${pad}{{- if .Values.webhook.urlBase }}`,
        `\n${pad}url: ${url}`,
        `\n${pad}{{- else }}`,
        indented(serviceText, indent),
        `\n${pad}{{- end }}`,
      ].join('');
    });
  }
}

/**
 * The namespace-label guard reserves the apply-to-existing label the chart passes to the operator
 * (applyToExisting.namespaceLabel), not only the default key config/ names.
 */
function reservedLabels(found: SourcedObject, copy: Mapping, slots: TemplateSlots): void {
  const variables = mappingAt(found, copy, ['spec']).variables;
  const reserved = Array.isArray(variables)
    ? variables.find((v): v is Mapping => isMapping(v) && v.name === 'reserved')
    : undefined;
  if (reserved === undefined) throw new Error(`${found.source}: no spec.variables "reserved"`);
  const applyKey = '(splitList "=" .Values.applyToExisting.namespaceLabel | first | squote)';
  reserved.expression = slots.inline(`{{ printf "['${IGNORE_LABEL}', %s]" ${applyKey} | quote }}`);
}

function edit(
  found: SourcedObject,
  systemNamespace: string,
  slots: TemplateSlots,
  extraLabels: string | undefined,
): Mapping {
  const copy = escapeStrings(found.object) as Mapping;
  const kind = found.object.kind;
  if (typeof kind === 'string' && kind.endsWith('WebhookConfiguration')) {
    webhookUrls(found, copy, systemNamespace, slots);
  }
  releaseNamespace(copy, systemNamespace, slots);
  labels(found, copy, slots, extraLabels);
  switch (found.object.kind) {
    // Both are kept on `helm uninstall`, unconditionally: deleting the CRD deletes every ModRule,
    // deleting the namespace deletes the cluster-wide ones (an adopted KubeMod namespace too).
    case 'Namespace':
      mappingAt(found, copy, ['metadata']).name = slots.inline(RELEASE_NAMESPACE);
      mappingAt(found, copy, ['metadata']).annotations = { [RESOURCE_POLICY]: 'keep' };
      break;
    case 'CustomResourceDefinition':
      mappingAt(found, copy, ['metadata']).annotations = { [RESOURCE_POLICY]: 'keep' };
      break;
    case 'Deployment':
      deployment(found, copy, slots);
      break;
    case 'MutatingWebhookConfiguration':
      dragnetWebhook({ source: found.source, object: copy }).failurePolicy = slots.inline(
        '{{ .Values.webhook.failurePolicy }}',
      );
      dragnetWebhook({ source: found.source, object: copy }).rules = slots.block(
        (indent) =>
          `\n${' '.repeat(indent)}{{- toYaml .Values.targetResources | nindent ${String(indent)} }}`,
      );
      ignoredNamespaces(found, copy, slots);
      break;
    case 'ValidatingAdmissionPolicy':
      reservedLabels(found, copy, slots);
      break;
    default:
      break;
  }
  return copy;
}

/** The template file for one config/ source (its objects already parsed). */
export function renderTemplate(
  source: ChartSource,
  objects: readonly SourcedObject[],
  systemNamespace: string,
): string {
  const documents = objects.map((found) => {
    const slots = createTemplateSlots();
    const text = slots.emit(edit(found, systemNamespace, slots, source.optional?.labelsValuePath));
    return found.object.kind === 'Namespace'
      ? `{{- if .Values.namespace.create }}\n${text}{{- end }}\n`
      : text;
  });
  const header = `# GENERATED by scripts/chart/generate-chart.ts from ${source.path}; do not edit.\n`;
  const body = documents.join('---\n');
  if (source.optional === undefined) return `${header}${body}`;
  const { valuePath, alsoRequires } = source.optional;
  const condition =
    alsoRequires === undefined
      ? `.Values.${valuePath}`
      : `and .Values.${valuePath} (${alsoRequires})`;
  return `${header}{{- if ${condition} }}\n${body}{{- end }}\n`;
}
