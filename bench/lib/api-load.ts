// Load generator for bench/api.ts, run in its own process so it does not share the server's event loop.
// Bounded load: `concurrency` requests in flight, each worker posting the next one as soon as its last
// answer arrives, for `seconds` (after a warm-up whose requests are not counted). Prints one JSON line.
import { Agent, request } from 'node:http';

const [url, key, secondsArg, concurrencyArg, warmupArg, runName, puzzle, answersJson] = process.argv.slice(2);
const seconds = Number(secondsArg);
const concurrency = Number(concurrencyArg);
const warmup = Number(warmupArg);
const answers = JSON.parse(answersJson!) as string[][][];
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const target = new URL('/api/assemblies', url);

function post(body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const latencies: number[] = [];
let ok = 0;
let failed = 0;
const statuses: Record<string, number> = {};
let counting = false;
let stop = false;
let seq = 0;
let total = 0;

async function worker(w: number): Promise<void> {
  while (!stop) {
    const i = seq++;
    const body = JSON.stringify({ run: runName, model: 'bench-model', puzzle, id: `w${w}-${i}`, answer: answers[i % answers.length] });
    const t0 = performance.now();
    const status = await post(body).catch(() => 0);
    const ms = performance.now() - t0;
    total++;
    if (!counting) continue;
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status === 201) {
      ok++;
      latencies.push(ms);
    } else failed++;
  }
}

const workers = Array.from({ length: concurrency }, (_, w) => worker(w));
await new Promise((r) => setTimeout(r, warmup * 1000));
counting = true;
const t0 = performance.now();
await new Promise((r) => setTimeout(r, seconds * 1000));
counting = false;
const elapsed = (performance.now() - t0) / 1000;
stop = true;
await Promise.all(workers);
agent.destroy();
latencies.sort((a, b) => a - b);
const q = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]! : null);
process.stdout.write(JSON.stringify({ total, ok, failed, statuses, seconds: elapsed, perSecond: ok / elapsed, p50: q(0.5), p99: q(0.99) }) + '\n');
