export {
  compileSelect,
  type CompiledSelect,
  type SelectItem,
  type SelectOutcome,
} from './select.js';
export { parseExpression } from './parser.js';
export type { Expr, Step } from './ast.js';
