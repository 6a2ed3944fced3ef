export { explainEvaluation, type Explained } from './explain.js';
export { DEFAULT_EXPLAIN_LIMITS, TraceRecorder } from './recorder.js';
export { renderExplainTree, type TreeNode, type TreeStyle } from './render-tree.js';
export type { EvaluationTracer } from './tracer.js';
export * from './schema.js';
