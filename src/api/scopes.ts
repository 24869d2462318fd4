import { KEY_SCOPES, type KeyScope } from '../services/keys.ts';

/**
 * Scope lattice: admin ⊇ write ⊇ read — a write key reads, an admin key writes and manages keys.
 * annotate stands apart (annotation endpoints and the annotation queue only), so a key handed to a
 * human annotator can label answers without reading reports or changing data. A key may hold several.
 */
export { KEY_SCOPES, type KeyScope };
/** What a route requires: a key scope, or nothing for the few public routes. */
export type RouteScope = KeyScope | 'public';

const IMPLIES: Readonly<Record<KeyScope, readonly KeyScope[]>> = {
  read: ['read'],
  write: ['write', 'read'],
  admin: ['admin', 'write', 'read'],
  annotate: ['annotate'],
};

export function grants(held: readonly string[], required: RouteScope): boolean {
  if (required === 'public') return true;
  return held.some((s) => (IMPLIES as Record<string, readonly KeyScope[] | undefined>)[s]?.includes(required) ?? false);
}
