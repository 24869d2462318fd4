import { createRoute, z } from '@hono/zod-openapi';
import type { Database } from '../../db/client.ts';
import { defineRoute, type Api } from '../define-route.ts';

const HealthSchema = z
  .object({
    status: z.literal('ok'),
    /** The engine holding the data, whatever the driver: a PGlite directory reached through its owner is pglite. */
    database: z.enum(['pglite', 'postgres']),
    connection: z.enum(['in-process', 'owner-socket', 'server']).openapi({
      description: 'in-process: PGlite in this process; owner-socket: a PGlite directory served by the assay process that owns it; server: PostgreSQL',
    }),
  })
  .openapi('Health');

/** What /health says about a database handle (its driver alone would call a PGlite owner's socket "postgres"). */
export function databaseHealth(d: Pick<Database, 'kind' | 'pgliteDir' | 'owner'>): { database: 'pglite' | 'postgres'; connection: 'in-process' | 'owner-socket' | 'server' } {
  if (d.kind === 'pglite') return { database: 'pglite', connection: 'in-process' };
  return d.owner || d.pgliteDir ? { database: 'pglite', connection: 'owner-socket' } : { database: 'postgres', connection: 'server' };
}

export function registerHealth(api: Api): void {
  defineRoute(api, {
    scope: 'public',
    route: createRoute({
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      tags: ['meta'],
      summary: 'Liveness and database check',
      responses: { 200: { description: 'Up', content: { 'application/json': { schema: HealthSchema } } } },
    }),
    handler: async (c) => {
      await api.deps.database.execute('select 1');
      return c.json({ status: 'ok' as const, ...databaseHealth(api.deps.database) }, 200);
    },
  });
}
