import type { AdmissionOperation } from '../api/index.js';
import { didYouMean } from '../api/did-you-mean.js';
import { describe } from '../api/field-reader.js';
import { isJsonObject, type JsonObject } from '../engine/json.js';
import { parseManifestDocuments } from '../engine/manifest-documents.js';
import { isKubemodError } from '../errors/catalog.js';
import { manifestObjects, type ManifestSet } from '../webhook/dryrun/dryrun-manifests.js';
import {
  pairResources,
  type DryRunResource,
  type GivenSyntheticRefs,
} from '../webhook/dryrun/dryrun-request.js';
import { CliError, type CliIo } from './cli-io.js';
import { readStdin, readText } from './read-inputs.js';

/** The flags of `dryrun` that name manifests. */
export interface DryrunInputFlags {
  readonly resource: string | undefined;
  readonly old: string | undefined;
  readonly refs: string | undefined;
  readonly operation: AdmissionOperation;
}

/** What `dryrun` evaluates: the resources (with their old objects) and the given syntheticRefs. */
export interface DryrunInputs {
  readonly resources: readonly DryRunResource[];
  /** True when the input held several objects (documents or a List): a result per resource. */
  readonly multi: boolean;
  readonly refs: GivenSyntheticRefs | undefined;
}

const REF_MEMBERS = ['namespace', 'node'];

/**
 * Reads `--resource`, `--old` and `--refs` (any one of them may be `-`, stdin), and pairs the
 * resources with their old objects as the dry-run API does (see pairResources). Throws CliError
 * naming the file or flag.
 */
export function readDryrunInputs(flags: DryrunInputFlags, io: CliIo): DryrunInputs {
  const fromStdin = [flags.resource, flags.old, flags.refs].filter((path) => path === '-');
  if (fromStdin.length > 1) {
    throw new CliError('only one of --resource, --old and --refs can read stdin (-)', 2);
  }
  const text = (path: string): { name: string; text: string } =>
    path === '-'
      ? { name: 'stdin', text: io.stdin?.() ?? readStdin() }
      : { name: path, text: readText(path) };
  const resources = flags.resource === undefined ? undefined : manifestSet(text(flags.resource));
  const old = flags.old === undefined ? undefined : manifestSet(text(flags.old));
  let paired;
  try {
    paired = pairResources(flags.operation, resources, old, {
      resource: '--resource',
      old: '--old',
      operation: '--operation',
    });
  } catch (err) {
    throw isKubemodError(err) ? new CliError(err.rawMessage()) : err;
  }
  return {
    resources: paired.resources,
    multi: paired.set.multi,
    refs: flags.refs === undefined ? undefined : readRefs(text(flags.refs)),
  };
}

/**
 * The objects of a manifest file, read as kubectl reads it (see parseManifestDocuments): its
 * documents, Lists expanded; each must have a kind. No limit on their number (the file's size is
 * bounded by readText).
 */
function manifestSet(input: { name: string; text: string }): ManifestSet {
  const { documents, errors } = parseManifestDocuments(input.text, input.name);
  if (errors.length > 0) throw new CliError(errors.join('; '));
  const none = (): CliError => new CliError(`${input.name}: holds no Kubernetes object`);
  const { objects, multi } = manifestObjects(
    documents,
    {},
    {
      empty: none,
      emptyList: none,
      notAnObject: (index, found) =>
        new CliError(
          `${input.name}: object ${String(index + 1)} must be a Kubernetes object, found ${describe(found)}`,
        ),
      noKind: (index) =>
        new CliError(`${input.name}: object ${String(index + 1)}: kind: is required`),
    },
  );
  return { objects, multi, text: true };
}

/** `--refs`: one YAML mapping `{namespace?: <Namespace>, node?: <Node>}`. */
function readRefs(input: { name: string; text: string }): GivenSyntheticRefs {
  const { documents, errors } = parseManifestDocuments(input.text, input.name);
  if (errors.length > 0) throw new CliError(errors.join('; '));
  const [refs] = documents;
  if (documents.length !== 1 || !isJsonObject(refs)) {
    throw new CliError(
      `${input.name}: must be one mapping {namespace: <Namespace manifest>, node: <Node manifest>}`,
    );
  }
  for (const key of Object.keys(refs)) {
    if (REF_MEMBERS.includes(key)) continue;
    const hint = didYouMean(key, REF_MEMBERS);
    throw new CliError(
      `${input.name}: ${key}: unknown field${hint === undefined ? '' : ` (did you mean ${hint}?)`}; --refs takes namespace and node`,
    );
  }
  const read = (member: 'namespace' | 'node', kind: string): JsonObject | undefined => {
    const manifest = refs[member];
    if (manifest === undefined || manifest === null) return undefined;
    if (!isJsonObject(manifest)) {
      throw new CliError(
        `${input.name}: ${member}: must be a ${kind} manifest, got ${describe(manifest)}`,
      );
    }
    if (manifest.kind !== undefined && manifest.kind !== kind) {
      throw new CliError(
        `${input.name}: ${member}.kind: must be ${kind}, got ${describe(manifest.kind)}`,
      );
    }
    return manifest;
  };
  const namespace = read('namespace', 'Namespace');
  const node = read('node', 'Node');
  return {
    ...(namespace === undefined ? {} : { namespace }),
    ...(node === undefined ? {} : { node }),
  };
}
