/** PostgreSQL unique_violation (SQLSTATE 23505), from postgres.js or PGlite, possibly wrapped by drizzle. */
export const isUniqueViolation = (e: unknown): boolean => {
  const err = e as { code?: string; cause?: { code?: string } } | null;
  return err?.code === '23505' || err?.cause?.code === '23505';
};
