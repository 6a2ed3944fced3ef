import { charge } from '../active-meter.js';

/**
 * Work units the template engine charges, calibrated against the meter's unit (about 50 ns of
 * CPU, ../work-meter.ts): handlebars spends about a microsecond per helper call and per loop
 * iteration, and null-prototype maps (dictionaries in V8) cost far more to create and write than
 * lists. Shallow work on large values is charged by size elsewhere (strings per 64 bytes, list
 * results per element, sorts per n·log n).
 */

/** Every function call, on top of the strings it reads and the value it returns. */
export const CALL_UNITS = 4;
/** Every loop iteration (range, each, until…), on top of the calls in its body. */
export const ITERATION_UNITS = 8;
/** Bytes per unit for hashing (UTF-8 conversion plus the digest). */
export const HASH_BYTES_PER_UNIT = 16;
/**
 * Characters per unit for functions that map every character (upper, lower, title, nospace,
 * snakecase…), on top of the wrapper's charge for reading them: about 3 ns per character.
 */
export const CASE_MAP_BYTES_PER_UNIT = 16;
/** Bytes per unit for base64 (UTF-8 conversion plus building the encoded or decoded string). */
export const BASE64_BYTES_PER_UNIT = 4;
/** A map visited by a walker (printing, JSON, YAML, comparing, merging). */
const MAP_VISIT_UNITS = 8;
/** A map created by the template (dict, copies, pick/omit, deepCopy…). */
const MAP_CREATE_UNITS = 16;
/** A key written into a map the template creates or updates. */
const KEY_WRITE_UNITS = 16;

/** Charges visiting a list of `length` elements. */
export function chargeListVisit(length: number): void {
  charge(1 + length);
}

/** Charges visiting a map of `keys` keys. */
export function chargeMapVisit(keys: number): void {
  charge(MAP_VISIT_UNITS + 2 * keys);
}

/** Charges creating a map and writing `keys` keys into it. */
export function chargeMapBuild(keys: number): void {
  charge(MAP_CREATE_UNITS + KEY_WRITE_UNITS * keys);
}

/** Charges writing `keys` keys into an existing map. */
export function chargeKeyWrites(keys: number): void {
  charge(KEY_WRITE_UNITS * keys);
}
