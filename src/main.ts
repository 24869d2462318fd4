// `npm start`: migrate, seed the examples into an empty database, serve on HOST:PORT (design §5).
import { loadConfig } from './config.ts';
import { isAssayError } from './domain/errors.ts';
import { runUntilSignal } from './server.ts';

try {
  await runUntilSignal(loadConfig(process.env));
} catch (e) {
  process.stderr.write(`assay: ${isAssayError(e) && e.code !== 'internal' ? e.message : ((e as Error)?.stack ?? String(e))}\n`);
  process.exitCode = isAssayError(e) && e.code !== 'internal' ? 2 : 1;
}
