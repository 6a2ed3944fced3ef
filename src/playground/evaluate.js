// @ts-check
// PLACEHOLDER owned by helper h28build (replaced by the in-browser engine when merged): the same
// contract, answered by the serving kubemod-ts's PUT /v1/dryrun.

/**
 * @param {Record<string, unknown>} body a PUT /v1/dryrun body
 * @returns {Promise<{ status: number, body: object }>}
 */
export async function evaluate(body) {
  const response = await fetch('v1/dryrun?explain=true', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  /** @type {unknown} */
  const answer = await response.json().catch(() => ({}));
  return {
    status: response.status,
    body: typeof answer === 'object' && answer !== null ? answer : {},
  };
}
