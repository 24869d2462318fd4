// Load generator for bench/report-load.ts, in its own process so it does not share the sampler's event
// loop: `concurrency` loops, each GETting the next path as soon as its last response is read, for
// `seconds`. Prints one JSON line: requests, statuses, p50/p99 latency in ms.
import { Agent, request } from 'node:http';

const [url, pathsArg, concurrencyArg, secondsArg, key] = process.argv.slice(2);
const paths = pathsArg!.split(',');
const concurrency = Number(concurrencyArg);
const seconds = Number(secondsArg);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

function get(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { agent, headers: key ? { authorization: `Bearer ${key}` } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const latencies: number[] = [];
const statuses: Record<string, number> = {};
const until = performance.now() + seconds * 1000;
let seq = 0;

async function loop(): Promise<void> {
  while (performance.now() < until) {
    const path = paths[seq++ % paths.length]!;
    const t0 = performance.now();
    const status = await get(path).catch(() => 0);
    latencies.push(performance.now() - t0);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
}

await Promise.all(Array.from({ length: concurrency }, loop));
latencies.sort((a, b) => a - b);
const q = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]! : null);
process.stdout.write(JSON.stringify({ requests: latencies.length, statuses, p50: q(0.5), p99: q(0.99) }) + '\n');
agent.destroy();
