export * from './modrule-types.js';
export { defaultModRule, defaultSpec, DEFAULT_ADMISSION_OPERATIONS } from './defaults.js';
export * from './annotations.js';
export { validateModRuleStructure, formatFieldErrors, type ValidationResult } from './validate.js';
