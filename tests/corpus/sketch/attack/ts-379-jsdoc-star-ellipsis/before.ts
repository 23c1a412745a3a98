/**
 * Load a thing.
 *
 * Longer description here.
 * @param id the id
 */
export function load(id: string, force = false): Thing {
  return get(id, force);
}
