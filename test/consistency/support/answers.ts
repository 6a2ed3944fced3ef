/**
 * One question, four ways to ask it: `kubemod-ts dryrun` in a fresh process, `kubemod-ts test`,
 * `PUT /v1/dryrun` and the dragnet webhook (AdmissionReview). Each answer is brought to one
 * shape, so that answers compare byte for byte (as JSON text).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import {
  isJsonObject,
  type JsonObject,
  type JsonPatchOperation,
  type JsonValue,
} from '../../../src/engine/json.js';
import { runTest } from '../../../src/cli/test-command.js';
import { dryRunInPage } from '../../../src/playground/engine/dry-run.js';
import { runCli } from '../../hostile/support/cli.js';
import {
  admissionReview,
  decodePatch,
  responseOf,
  send,
  testTls,
  type Harness,
} from '../../unit/webhook/harness.js';
import type { RuleFile } from './example-rules.js';

/** What every path tells: the patch, the rejections and the rules that failed and were skipped. */
export interface Answer {
  readonly patch: readonly JsonPatchOperation[];
  /**
   * The rejections as the webhook words them, joined (`<ns>/<name>: "<message>"`, by commas),
   * '' when none: a rejection message may itself hold a comma.
   */
  readonly rejected: string;
  /** `<namespace>/<name>` of each failed rule (the webhook names no more than that). */
  readonly failed: readonly string[];
}

/** The same answer as JSON text: equal text is a byte-identical answer. */
export function answerText(answer: Answer): string {
  return JSON.stringify({ patch: answer.patch, rejected: answer.rejected, failed: answer.failed });
}

function joined(rejections: readonly string[]): string {
  return rejections.join(',');
}

/** The JSON a dry run answers with, the same from the CLI, the HTTPS API and the page. */
interface DryRunBody {
  readonly patch: JsonPatchOperation[];
  readonly rejections: string[];
  readonly failures: { rule: string }[];
}

function fromDryRun(body: DryRunBody): Answer {
  return {
    patch: body.patch,
    rejected: joined(body.rejections),
    failed: body.failures.map((f) => f.rule),
  };
}

/** Writes the rules under `dir/rules` (one file each) and returns the directory. */
export function writeRules(dir: string, rules: readonly RuleFile[]): string {
  const rulesDir = join(dir, 'rules');
  mkdirSync(rulesDir, { recursive: true });
  for (const rule of rules) writeFileSync(join(rulesDir, rule.name), rule.yaml);
  return rulesDir;
}

/** Every ModRule manifest of the files, for a `/v1/dryrun` body. */
export function ruleManifests(rules: readonly RuleFile[]): JsonObject[] {
  return rules.flatMap((rule) =>
    loadAll(rule.yaml).filter((d): d is JsonObject => isJsonObject(d as JsonValue)),
  );
}

/** `kubemod-ts dryrun --modrule <rulesDir> --resource <file> -o json`, in a fresh process. */
export async function dryrunFresh(
  rulesDir: string,
  resourceFile: string,
): Promise<Answer & { readonly rejections: readonly string[] }> {
  const run = await runCli(
    ['dryrun', '--modrule', rulesDir, '--resource', resourceFile, '--output', 'json'],
    120_000,
  );
  if (run.code !== 0) throw new Error(`dryrun exited ${String(run.code)}: ${run.stderr}`);
  const body = JSON.parse(run.stdout) as DryRunBody;
  return { ...fromDryRun(body), rejections: body.rejections };
}

/** `PUT /v1/dryrun` on the harness's HTTPS server. */
export async function dryrunApi(
  harness: Harness,
  manifests: readonly JsonObject[],
  resource: JsonObject,
): Promise<Answer> {
  const answer = await send(
    harness.server.port,
    testTls().ca,
    'PUT',
    '/v1/dryrun',
    JSON.stringify({ resourceManifest: resource, modRules: manifests }),
  );
  if (answer.status !== 200) throw new Error(`/v1/dryrun answered ${String(answer.status)}`);
  return fromDryRun(answer.json<DryRunBody>());
}

/** The playground's in-page dry run (the page's code: runDryRunJob, as the worker runs it). */
export async function inPage(
  manifests: readonly JsonObject[],
  resource: JsonObject,
): Promise<Answer> {
  const answer = await dryRunInPage({ resourceManifest: resource, modRules: manifests });
  if (answer.status !== 200) throw new Error(`the page answered ${String(answer.status)}`);
  return fromDryRun(answer.body as DryRunBody);
}

const REJECTED_PREFIX = 'operation rejected by the following ModRule(s): ';
const FAILED_PREFIX = 'kubemod-ts: ModRule(s) failed and were skipped: ';

/** How the API server names the resource of a request (Deployments unless told). */
export interface ReviewResource {
  readonly group: string;
  readonly resource: string;
  /** The request's namespace as the API server decided it (default: metadata.namespace). */
  readonly namespace?: string;
}

const DEPLOYMENTS: ReviewResource = { group: 'apps', resource: 'deployments' };

/**
 * The dragnet webhook's AdmissionReview answer for a CREATE of `resource`, sent as the API
 * server sends it: in the request's namespace, filled into the object's metadata when it had none.
 */
export async function webhook(
  harness: Harness,
  resource: JsonObject,
  as: ReviewResource = DEPLOYMENTS,
): Promise<Answer> {
  const metadata = resource.metadata as JsonObject;
  const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');
  const namespace = as.namespace ?? text(metadata.namespace);
  const object =
    namespace === '' ? resource : { ...resource, metadata: { ...metadata, namespace } };
  const answer = await harness.post(
    '/dragnet-webhook',
    admissionReview({
      operation: 'CREATE',
      kind: text(resource.kind),
      group: as.group,
      resource: as.resource,
      namespace,
      name: text(metadata.name),
      object,
    }),
  );
  const { response } = responseOf(answer);
  const message = response.status?.message ?? '';
  const failedWarning = (response.warnings ?? []).find((w) => w.startsWith(FAILED_PREFIX));
  return {
    // A rejected request carries no patch: the rejection is the answer.
    patch: response.allowed && response.patch !== undefined ? decodePatch(response) : [],
    rejected: response.allowed
      ? ''
      : message.startsWith(REJECTED_PREFIX)
        ? message.slice(REJECTED_PREFIX.length)
        : message,
    failed:
      failedWarning === undefined ? [] : failedWarning.slice(FAILED_PREFIX.length).split(', '),
  };
}

/**
 * `kubemod-ts test` (in this process, as `runTest` is the command) on a test file whose one case
 * expects exactly `expected`: it passes only when `test` gives that answer.
 */
export function passesTest(
  dir: string,
  rulesDir: string,
  resourceFile: string,
  expected: Answer & { readonly rejections: readonly string[] },
): { readonly passed: boolean; readonly output: string } {
  const expect: JsonObject =
    expected.patch.length === 0
      ? { noChange: true }
      : { patch: expected.patch as unknown as JsonObject[] };
  expect.rejections = [...expected.rejections];
  expect.failures = expected.failed.map((rule) => ({ rule }));
  const file = join(dir, 'kubemod-test.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      rules: [rulesDir],
      cases: [{ name: 'same answer', resource: resourceFile, expect }],
    }),
  );
  let output = '';
  const code = runTest([file, '--output', 'json'], {
    stdout: (text) => {
      output += text;
    },
    stderr: (text) => {
      output += text;
    },
    env: {},
  });
  return { passed: code === 0, output };
}
