import type { FieldError, ModRuleSpec } from '../../api/modrule-types.js';
import type { UserInfo } from '../../authz/author-record.js';
import { literalLookups } from '../../engine/cluster/literal-lookups.js';
import { describeKey } from '../../engine/cluster/namespace-pin.js';
import { errorCatalog } from '../../errors/catalog.js';
import type { LookupAdmissionCheck } from '../dependencies.js';

/** Distinct literal lookups reviewed per ModRule; the rest are checked when the rule runs. */
export const MAX_REVIEWED_LITERALS = 32;

/**
 * Field errors for the literal lookups of a ModRule the requesting user may not `get` (issue 35):
 * a rule may not name what its author could not read. Only lookups whose name is literal too are
 * reviewed here (a computed name is checked per object when the rule runs, against the recorded
 * author); the same object named twice is asked once; at most MAX_REVIEWED_LITERALS are asked.
 */
export async function literalLookupErrors(
  rule: { readonly spec: ModRuleSpec },
  user: UserInfo,
  check: LookupAdmissionCheck,
): Promise<FieldError[]> {
  const seen = new Map<string, string[]>();
  for (const { field, key } of literalLookups(rule)) {
    if (key.name === '') continue;
    const id = JSON.stringify([key.apiVersion, key.kind, key.namespace ?? '', key.name]);
    const fields = seen.get(id);
    if (fields !== undefined) fields.push(field);
    else if (seen.size < MAX_REVIEWED_LITERALS) seen.set(id, [field]);
  }
  const reviews = await Promise.all(
    [...seen].map(async ([id, fields]) => {
      const [apiVersion = '', kind = '', namespace = '', name = ''] = JSON.parse(id) as string[];
      const key = { apiVersion, kind, namespace, name };
      const reason = await check.refusal(user, key);
      return reason === undefined
        ? []
        : fields.map((field): FieldError => ({
            field,
            message: `lookup ${describeKey(key)}: ${reason}`,
            code: errorCatalog.LOOKUP_REFUSED.code,
          }));
    }),
  );
  return reviews.flat();
}
