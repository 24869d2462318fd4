import type { Command } from '../command.ts';
import { numberFlag } from '../io.ts';

/** `assay serve`: what `npm start` does, with --port/--host overriding PORT/HOST. */
const serve: Command = {
  path: ['serve'],
  summary: 'Migrate, seed the examples into an empty database, and serve the API (PORT, HOST, DATABASE_URL)',
  usage: '[--port N] [--host H]',
  options: { port: { type: 'string' }, host: { type: 'string' } },
  async run({ values }) {
    const { loadConfig } = await import('../../config.ts');
    const { runUntilSignal } = await import('../../server.ts');
    const config = loadConfig(process.env);
    const port = numberFlag(values, 'port', { integer: true, min: 0, max: 65535 });
    if (port !== undefined) config.port = port;
    if (typeof values.host === 'string' && values.host !== '') config.host = values.host;
    await runUntilSignal(config);
  },
};

export default serve;
