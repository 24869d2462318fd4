import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Under `npm start` the server is npm's grandchild: npm → `sh -c "node …"` → node. npm forwards SIGTERM
 * to the shell, and dash dies of it without passing it on; a SIGKILLed npm forwards nothing. Either way
 * the server would run on as an orphan, holding the port and the data directory. So a server started
 * through npm watches its parent and grandparent (the shell and npm) and stops when either is gone.
 * Supervisors should start `bin/assay serve` instead, which is node itself and gets their signals.
 */

export function startedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.npm_lifecycle_event);
}

/** Calls `onGone` once (with a description) when the parent or grandparent process ends. Returns a stop function. */
export function watchAncestors(onGone: (why: string) => void, everyMs = 500): () => void {
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  const timer = setInterval(() => {
    const why =
      process.ppid !== parent || !alive(parent)
        ? `its parent process (pid ${parent}) is gone`
        : grandparent !== null && grandparent > 1 && !alive(grandparent)
          ? `its grandparent process (pid ${grandparent}, npm) is gone`
          : null;
    if (!why) return;
    clearInterval(timer);
    onGone(why);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The parent pid of `pid`: /proc on Linux, `ps` elsewhere; null when neither answers. */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) return ppid;
  } catch {
    // no /proc
  }
  try {
    const ppid = Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}
