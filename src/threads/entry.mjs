// Worker entry when assay runs from TypeScript source: a worker thread does not inherit the tsx loader
// that `node --import tsx` gave the main thread (Node 20), so register it here, then load the real
// worker module. Compiled builds start worker.js directly and never load this file.
import { workerData } from 'node:worker_threads';

const { register } = await import('tsx/esm/api');
register();
await import(workerData.entry);
