export { compileMatchItem, type CompiledMatchItem } from './criteria.js';
export type { MatchTracer } from './match-tracer.js';
export { compileMatch, MatchCompileError, type CompiledMatch } from './rule-match.js';
