export {
  compileMatchItem,
  type CompiledMatchItem,
  type MatchFor,
  type MatchItemSpec,
} from './criteria.js';
export { compileMatch, MatchCompileError, type CompiledMatch } from './rule-match.js';
