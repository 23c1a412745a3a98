/**
 * Load a thing.
 *
 * Longer description here.
 * @param id the id
 * @param force reload even when cached
 */
export function load(id: string, force = false): Thing {
  return get(id, force);
}
