/**
 * The one catalog of errors the project raises. Every error has a stable code (never reused or
 * renumbered) so logs, metrics and tests can refer to it. Codes are grouped by layer:
 * KM1xxx select language, KM2xxx ModRule API, KM3xxx templates, KM4xxx patches,
 * KM5xxx rule evaluation, KM6xxx input/CLI/webhook, KM7xxx cluster/controller.
 */
export const errorCatalog = {
  EXPR_SYNTAX: { code: 'KM1001', summary: 'select expression cannot be parsed' },
  EXPR_TYPE: { code: 'KM1002', summary: 'select expression applied an operator to a wrong type' },
  EXPR_FUNCTION: { code: 'KM1003', summary: 'select expression called an unknown function' },
  EXPR_LIMIT: { code: 'KM1004', summary: 'select expression exceeded an evaluation limit' },
  REGEX_INVALID: { code: 'KM1010', summary: 'regular expression is not valid RE2 syntax' },

  MODRULE_INVALID: { code: 'KM2001', summary: 'ModRule is invalid' },

  TEMPLATE_PARSE: { code: 'KM3001', summary: 'template cannot be parsed' },
  TEMPLATE_RENDER: { code: 'KM3002', summary: 'template failed while rendering' },
  TEMPLATE_LIMIT: { code: 'KM3003', summary: 'template output exceeded its limit' },

  PATCH_PLACEHOLDER: { code: 'KM4001', summary: 'patch path placeholder has no captured index' },
  PATCH_VALUE: { code: 'KM4002', summary: 'patch value is not valid YAML' },
  PATCH_APPLY: { code: 'KM4003', summary: 'patch operation cannot be applied' },
  PATCH_PATH: { code: 'KM4004', summary: 'patch path is not a valid JSON pointer' },

  RULE_EVAL: { code: 'KM5001', summary: 'ModRule failed during evaluation and was skipped' },
  WORK_LIMIT: { code: 'KM5002', summary: 'evaluation exceeded its work or time budget' },
  DEPTH_LIMIT: { code: 'KM5003', summary: 'a value nests deeper than the engine follows' },
  YAML_LIMIT: { code: 'KM5004', summary: 'YAML aliases expand beyond the allowed size' },
  LOOKUP_REFUSED: { code: 'KM5005', summary: 'a lookup read what the rule may not read' },
  LOOKUP_UNAVAILABLE: {
    code: 'KM5006',
    summary: 'a lookup found no answer: kind not cached, cache not synced or provider down',
  },
  LOOKUP_PENDING: {
    code: 'KM5007',
    summary: 'a lookup was not resolved (access review or provider call) in time',
  },
  LOOKUP_LIMIT: { code: 'KM5008', summary: 'a request made more distinct lookups than allowed' },

  INPUT_UNREADABLE: { code: 'KM6001', summary: 'input cannot be read' },
  INPUT_INVALID: { code: 'KM6002', summary: 'input is not valid' },
  REQUEST_MALFORMED: { code: 'KM6003', summary: 'request is malformed' },
  REQUEST_TOO_LARGE: { code: 'KM6004', summary: 'request body exceeds the limit' },
  SERVER_BUSY: { code: 'KM6005', summary: 'too many requests are waiting; retry later' },
  WORKER_FAILED: {
    code: 'KM6006',
    summary: 'the worker thread handling the request stopped before answering',
  },
  REQUEST_DEADLINE: {
    code: 'KM6007',
    summary: 'the request could not be evaluated before its deadline',
  },

  CLUSTER: { code: 'KM7001', summary: 'Kubernetes API operation failed' },
  CLUSTER_CONFIG: {
    code: 'KM7002',
    summary: 'the kubeconfig or in-cluster configuration cannot be used',
  },
  PROVIDER_INVALID: { code: 'KM7010', summary: 'ExternalDataProvider is invalid' },
  PROVIDER_CALL: { code: 'KM7011', summary: 'an external-data provider call failed' },
} as const;

export type ErrorName = keyof typeof errorCatalog;
export type ErrorCode = (typeof errorCatalog)[ErrorName]['code'];

/** An error raised by kubemod-ts: a catalogued kind, a message and, where known, a field path. */
export class KubemodError extends Error {
  readonly kind: ErrorName;
  readonly code: ErrorCode;
  readonly field: string | undefined;

  constructor(kind: ErrorName, message: string, field?: string, options?: { cause?: unknown }) {
    super(field === undefined ? message : `${field}: ${message}`, options);
    this.name = 'KubemodError';
    this.kind = kind;
    this.code = errorCatalog[kind].code;
    this.field = field;
  }

  /** The same error under a parent field: `atField('spec.match[2]')` of a `select` error gives `spec.match[2].select`. */
  atField(prefix: string): KubemodError {
    const field = this.field === undefined ? prefix : `${prefix}.${this.field}`;
    return new KubemodError(this.kind, this.rawMessage(), field, { cause: this });
  }

  /** The message without the field prefix. */
  rawMessage(): string {
    return this.field === undefined ? this.message : this.message.slice(this.field.length + 2);
  }
}

export function isKubemodError(err: unknown): err is KubemodError {
  return err instanceof KubemodError;
}

/** Turns anything thrown into a short, printable message. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
