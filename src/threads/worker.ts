import { parentPort } from 'node:worker_threads';

/**
 * The worker side of pool.ts: each message names a module (a file URL), one of its exports and the
 * input; the export's result (or its error's code and message) goes back under the message's id.
 * Modules load once per thread and stay loaded, so a task pays its imports on the first call only.
 */

interface TaskMessage {
  id: number;
  module: string;
  fn: string;
  input: unknown;
}

const port = parentPort;
if (!port) throw new Error('src/threads/worker.ts runs only as a worker thread');

const modules = new Map<string, Promise<Record<string, unknown>>>();
const load = (url: string) => {
  let m = modules.get(url);
  if (!m) modules.set(url, (m = import(url) as Promise<Record<string, unknown>>));
  return m;
};

port.on('message', async (msg: TaskMessage) => {
  try {
    const fn = (await load(msg.module))[msg.fn];
    if (typeof fn !== 'function') throw new Error(`${msg.module} has no exported function ${msg.fn}`);
    port.postMessage({ id: msg.id, ok: true, value: await fn(msg.input) });
  } catch (e) {
    const err = e as { name?: string; code?: string; message?: string; stack?: string };
    port.postMessage({ id: msg.id, ok: false, error: { name: err?.name ?? 'Error', code: err?.code, message: err?.message ?? String(e), stack: err?.stack } });
  }
});
