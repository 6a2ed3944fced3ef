import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { crdToJsonSchema, type CrdSource, type SchemaNode } from './crd-to-json-schema.js';
import { testFileSchema } from './test-file-schema.js';

/**
 * The JSON Schemas `npm run schema` writes to schemas/ (and each release publishes): one per
 * served version of each CRD under config/crd, named as kubeconform looks them up with
 * `-schema-location '<dir>/{{ .ResourceKind }}{{ .KindSuffix }}.json'` (lower-case kind, then
 * `-<first label of the group>-<version>`: `modrule-api-v1beta1.json`), and the test-file schema
 * `kubemod-test.json`.
 */

/** Where the schemas are written, relative to the repository. */
export const SCHEMA_DIR = 'schemas';
/** The CRDs they are generated from. */
export const CRD_DIR = 'config/crd';
/** The test-file schema's name. */
export const TEST_FILE_SCHEMA = 'kubemod-test.json';

/** kubeconform's name for a kind's schema: `{{ .ResourceKind }}{{ .KindSuffix }}.json`. */
export function kubeconformFileName(kind: string, group: string, version: string): string {
  const [firstLabel] = group.split('.');
  return `${kind.toLowerCase()}-${(firstLabel ?? group).toLowerCase()}-${version.toLowerCase()}.json`;
}

/** The served versions of one CRD manifest, ready to convert. */
export function crdSources(manifest: unknown, file: string): CrdSource[] {
  const spec = field(field(manifest, 'document', file).spec, 'spec', file);
  const group = spec.group;
  const names = field(spec.names, 'spec.names', file);
  const versions = spec.versions;
  if (typeof group !== 'string' || typeof names.kind !== 'string' || !Array.isArray(versions)) {
    throw new Error(`${file}: not a CustomResourceDefinition (spec.group, names.kind, versions)`);
  }
  return versions
    .map((v, i) => field(v, `spec.versions[${String(i)}]`, file))
    .filter((v) => v.served === true)
    .map((v) => ({
      group,
      kind: names.kind as string,
      version: String(v.name),
      schema: field(field(v.schema, 'schema', file).openAPIV3Schema, 'openAPIV3Schema', file),
    }));
}

/** Every schema file, name → content (formatted as prettier formats JSON), sorted by name. */
export function renderSchemas(repoRoot: string): Map<string, string> {
  const out = new Map<string, string>();
  let modRule: SchemaNode | undefined;
  const crdDir = join(repoRoot, CRD_DIR);
  for (const name of readdirSync(crdDir).sort()) {
    if (!name.endsWith('.yaml')) continue;
    const file = `${CRD_DIR}/${name}`;
    for (const crd of crdSources(load(readFileSync(join(crdDir, name), 'utf8')), file)) {
      const schema = crdToJsonSchema(crd);
      if (crd.kind === 'ModRule' && crd.version === 'v1beta1') modRule = schema;
      out.set(kubeconformFileName(crd.kind, crd.group, crd.version), render(schema));
    }
  }
  if (modRule === undefined) throw new Error(`${CRD_DIR}: no ModRule v1beta1 CRD`);
  out.set(TEST_FILE_SCHEMA, render(testFileSchema(modRule)));
  return new Map([...out.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

function render(schema: SchemaNode): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

function field(value: unknown, at: string, file: string): SchemaNode {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${file}: ${at} must be a mapping`);
  }
  return value as SchemaNode;
}
