import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { apiKeys } from '../db/schema.ts';
import { AssayError, badInput, notFound } from '../domain/errors.ts';

/**
 * API keys. The key is shown once at creation; only SHA-256(key) and a public prefix are stored, so a
 * leaked database does not leak usable keys. Format: assay_<prefix>_<secret>, where the prefix (8 hex)
 * names the key in listings and revocation and the secret carries 256 random bits.
 */
export const KEY_SCOPES = ['read', 'write', 'admin', 'annotate'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface KeyInfo {
  prefix: string;
  name: string;
  scopes: KeyScope[];
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface VerifiedKey {
  keyId: number;
  prefix: string;
  name: string;
  scopes: KeyScope[];
}

const KEY_PATTERN = /^assay_([0-9a-f]{8})_[A-Za-z0-9_-]{43}$/;

export const hashKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

function parseScopes(scopes: readonly string[]): KeyScope[] {
  if (scopes.length === 0) throw badInput(`scope: at least one of ${KEY_SCOPES.join('|')} is required`);
  for (const s of scopes) {
    if (!(KEY_SCOPES as readonly string[]).includes(s)) throw badInput(`scope: must be one of ${KEY_SCOPES.join('|')}, got '${s}'`);
  }
  return [...new Set(scopes)] as KeyScope[];
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function toInfo(r: typeof apiKeys.$inferSelect): KeyInfo {
  return {
    prefix: r.prefix,
    name: r.name,
    scopes: r.scopes as KeyScope[],
    createdAt: r.createdAt.toISOString(),
    revokedAt: iso(r.revokedAt),
    lastUsedAt: iso(r.lastUsedAt),
  };
}

export async function createKey(database: Database, opts: { scopes: readonly string[]; name?: string }): Promise<KeyInfo & { key: string }> {
  const scopes = parseScopes(opts.scopes);
  const name = (opts.name ?? `${scopes.join('+')} key`).trim();
  if (name === '') throw badInput('name: must not be empty');
  // A prefix collision among 2^32 values is rare but possible: retry with fresh randomness.
  for (let attempt = 0; attempt < 5; attempt++) {
    const prefix = randomBytes(4).toString('hex');
    const key = `assay_${prefix}_${randomBytes(32).toString('base64url')}`;
    const rows = await database.db
      .insert(apiKeys)
      .values({ name, prefix, hash: hashKey(key), scopes })
      .onConflictDoNothing()
      .returning();
    if (rows[0]) return { ...toInfo(rows[0]), key };
  }
  throw new AssayError('internal', 'could not allocate a unique key prefix');
}

export async function listKeys(database: Database): Promise<KeyInfo[]> {
  const rows = await database.db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  return rows.map(toInfo);
}

/** Revokes by prefix (idempotent: revoking twice keeps the first revocation time). */
export async function revokeKey(database: Database, prefix: string): Promise<KeyInfo> {
  const p = prefix.replace(/^assay_/, '').split('_')[0] ?? '';
  await database.db.update(apiKeys).set({ revokedAt: sql`now()` }).where(and(eq(apiKeys.prefix, p), isNull(apiKeys.revokedAt)));
  for (const cache of verifierCaches) for (const [h, v] of cache) if (v.key.prefix === p) cache.delete(h);
  const rows = await database.db.select().from(apiKeys).where(eq(apiKeys.prefix, p));
  if (!rows[0]) throw notFound(`key ${prefix}: no such key`);
  return toInfo(rows[0]);
}

export async function hasActiveAdminKey(database: Database): Promise<boolean> {
  const r = await database.execute(
    `select 1 from api_keys where revoked_at is null and scopes @> '["admin"]'::jsonb limit 1`,
  );
  return r.rows.length > 0;
}

/**
 * Positive verifications are remembered for a short time so the hot path does not query the database
 * on every request. Revoking through this process (API or service) clears them at once; a revocation
 * made by another process (`assay keys revoke` while the server runs) takes effect within this TTL.
 */
export const VERIFIED_KEY_TTL_MS = 2000;
const verifierCaches = new Set<Map<string, { key: VerifiedKey; at: number }>>();

/**
 * Returns the key's identity, or null for an unknown, malformed or revoked key: callers answer all
 * three with the same 401 so a probe learns nothing. last_used_at is refreshed at most once a minute
 * per key, so verification stays one indexed read (or none, within the TTL) on the hot path.
 */
export function keyVerifier(database: Database, now: () => number = Date.now): (token: string) => Promise<VerifiedKey | null> {
  const touched = new Map<number, number>();
  const cache = new Map<string, { key: VerifiedKey; at: number }>();
  verifierCaches.add(cache);
  return async (token) => {
    if (!KEY_PATTERN.test(token)) return null;
    const hash = hashKey(token);
    const t = now();
    const hit = cache.get(hash);
    if (hit && t - hit.at < VERIFIED_KEY_TTL_MS) return hit.key;
    const rows = await database.db
      .select({ id: apiKeys.id, prefix: apiKeys.prefix, name: apiKeys.name, scopes: apiKeys.scopes, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.hash, hash))
      .limit(1);
    const r = rows[0];
    if (!r || r.revokedAt) {
      cache.delete(hash);
      return null;
    }
    if ((touched.get(r.id) ?? 0) < t - 60_000) {
      touched.set(r.id, t);
      await database.db.update(apiKeys).set({ lastUsedAt: sql`now()` }).where(eq(apiKeys.id, r.id));
    }
    const key: VerifiedKey = { keyId: r.id, prefix: r.prefix, name: r.name, scopes: r.scopes as KeyScope[] };
    if (cache.size > 10_000) cache.clear();
    cache.set(hash, { key, at: t });
    return key;
  };
}
