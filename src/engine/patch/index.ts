export { applyOperation, type PatchOperationInput, type PatchOpName } from './apply-operation.js';
export {
  createJsonPatch,
  DEFAULT_IGNORED_PATHS,
  jsonEqual,
  type CreateJsonPatchOptions,
} from './json-diff.js';
export {
  escapePointerSegment,
  formatJsonPointer,
  jsonPointerSegments,
  parseJsonPointer,
  unescapePointerSegment,
  validatePatchPath,
} from './json-pointer.js';
export { compilePath, type CompiledPath, type PathPart } from './placeholders.js';
export { unifiedYamlDiff, toYaml } from './yaml-diff.js';
export { parseYamlDocuments, parseYamlValue } from './yaml-value.js';
