import { defineConfig } from 'drizzle-kit';

/** `npx drizzle-kit generate` writes SQL migrations from src/db/schema.ts; `assay migrate` applies them. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './migrations',
});
