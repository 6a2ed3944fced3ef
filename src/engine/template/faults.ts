import { KubemodError } from '../../errors/catalog.js';

/**
 * A render error carried as a value. Go's `and`/`or` evaluate their arguments lazily, so an
 * error in an argument that is never reached must not fail the render. Helpers therefore return
 * a Fault instead of throwing; whoever consumes the value (another function, printing, if/range)
 * throws it. `and`/`or` only throw a Fault they actually reach.
 */
export class Fault {
  constructor(readonly error: KubemodError) {}
}

export function renderError(message: string): KubemodError {
  return new KubemodError('TEMPLATE_RENDER', message);
}

export function parseError(message: string): KubemodError {
  return new KubemodError('TEMPLATE_PARSE', message);
}

/** Throws the error carried by a Fault; returns any other value unchanged. */
export function unfault(value: unknown): unknown {
  if (value instanceof Fault) throw value.error;
  return value;
}
