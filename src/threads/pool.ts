import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AssayError, type ErrorCode } from '../domain/errors.ts';
import { CODE_DIR, FROM_BUILD, ownModuleUrl, projectPath } from '../paths.ts';

/**
 * CPU-heavy pure work (bootstrap intervals, calibration, chart rendering) off the event loop: one
 * worker thread, started on first use, runs `module.fn(input)` and sends the result back. The input and
 * the result cross by structured clone (plain data only: no functions, no class instances). While no
 * task is pending the thread is unref'd, so it never keeps a process alive.
 *
 * From TypeScript source (`node --import tsx`) a worker does not inherit the tsx loader, so the thread
 * starts at entry.mjs, which registers tsx and then loads worker.ts; a compiled build starts worker.js.
 * If the thread cannot start at all, tasks run in this thread instead (same code, same results) after
 * one warning on stderr.
 */

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface RemoteError {
  name: string;
  code?: string;
  message: string;
  stack?: string;
}

let worker: Worker | null = null;
let online = false;
let unavailable = false;
let nextId = 1;
const pending = new Map<number, Pending>();

function spawn(): Worker {
  // From source a worker thread does not inherit the tsx loader: entry.mjs registers it first.
  const workerUrl = ownModuleUrl('threads/worker');
  const w = FROM_BUILD
    ? new Worker(workerUrl, { execArgv: [] })
    : new Worker(pathToFileURL(projectPath('src', 'threads', 'entry.mjs')), { workerData: { entry: workerUrl.href }, execArgv: [] });
  w.on('online', () => (online = true));
  w.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: RemoteError }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) w.unref();
    if (m.ok) p.resolve(m.value);
    else p.reject(toError(m.error!));
  });
  const fail = (e: unknown) => {
    if (worker !== w) return;
    worker = null;
    if (!online) unavailable = true;
    online = false;
    const reason = e instanceof Error ? e : new Error(`report thread exited (code ${String(e)})`);
    for (const [, p] of pending) p.reject(reason);
    pending.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(code));
  w.unref();
  return w;
}

function toError(e: RemoteError): Error {
  if (e.name === 'AssayError' && e.code) return new AssayError(e.code as ErrorCode, e.message);
  const err = new Error(e.message);
  err.name = e.name;
  if (e.stack) err.stack = e.stack;
  return err;
}

async function runInline<T>(module: URL, fn: string, input: unknown): Promise<T> {
  const f = ((await import(module.href)) as Record<string, unknown>)[fn];
  if (typeof f !== 'function') throw new Error(`${module.href} has no exported function ${fn}`);
  // The thread hands over a structured clone; so does this path, so callers see the same kind of data.
  return structuredClone(await (f as (x: unknown) => unknown)(structuredClone(input))) as T;
}

/**
 * The file URL of a task module beside `base` (pass import.meta.url): `name` beside the caller's source
 * from src/; in the build, the entry scripts/build.mjs made of it, listed in dist/threads/tasks.json
 * (a caller's import.meta.url there may be a shared chunk's, not its own file's).
 */
export const taskModule = (name: string, base: string): URL => {
  if (!FROM_BUILD) return new URL(`./${name}.ts`, base);
  const path = builtTasks()[name];
  if (!path) throw new Error(`task module '${name}' is not in dist/threads/tasks.json (rebuild: npm run build)`);
  return ownModuleUrl(path);
};

let tasks: Record<string, string> | null = null;
const builtTasks = (): Record<string, string> => (tasks ??= JSON.parse(readFileSync(join(CODE_DIR, 'threads', 'tasks.json'), 'utf8')) as Record<string, string>);

let warned = false;

/** `module.fn(input)` on the worker thread; its value, or its error (an AssayError stays one). */
export async function runInThread<T>(module: URL, fn: string, input: unknown): Promise<T> {
  if (unavailable) return runInline<T>(module, fn, input);
  worker ??= spawn();
  const w = worker;
  const id = nextId++;
  try {
    return await new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      w.ref();
      w.postMessage({ id, module: module.href, fn, input });
    });
  } catch (e) {
    if (!unavailable) throw e;
    if (!warned) {
      warned = true;
      process.stderr.write(`assay: the report thread could not start (${(e as Error).message}); computing reports on the main thread\n`);
    }
    return runInline<T>(module, fn, input);
  }
}

/** `module.fn(input)` in this thread, with the same copy semantics as runInThread (tests compare the two). */
export const runHere = runInline;

/** Ends the thread (the next task starts a new one). */
export async function stopThreads(): Promise<void> {
  const w = worker;
  worker = null;
  online = false;
  if (w) await w.terminate();
}
