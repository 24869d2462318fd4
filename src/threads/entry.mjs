// Worker entry when assay runs from TypeScript source: a worker thread does not inherit the tsx loader
// that `node --import tsx` gave the main thread (Node 20), so register it here, then load the real
// worker module. Compiled builds start worker.js directly and never load this file.
// The project's tsconfig.json, named: left to itself tsx takes the one it finds from the cwd, so a
// thread of a process started in another directory compiled src/ without it (.tsx with the classic
// React.createElement runtime, imports elided without verbatimModuleSyntax).
import { fileURLToPath } from 'node:url';
import { workerData } from 'node:worker_threads';

const { register } = await import('tsx/esm/api');
register({ tsconfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)) });
await import(workerData.entry);
