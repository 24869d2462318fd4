// Seed time, one run: `seedExamples` into a fresh database — in-memory PGlite, file-backed PGlite (what
// `npm start` uses) and, when TEST_DATABASE_URL is set, PostgreSQL — split into the import transaction
// and the lexical grading + labels that follow (timed as a second call on a database whose grades and
// labels were removed, which is exactly the "resume" path).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase, type Database } from '../src/db/client.ts';
import { seedExamples } from '../src/services/seed.ts';

async function measure(label: string, open: () => Promise<{ database: Database; done: () => Promise<void> }>): Promise<void> {
  const { database, done } = await open();
  try {
    await migrate(database);
    let t = performance.now();
    const r = await seedExamples(database);
    const total = performance.now() - t;
    await database.execute('delete from grades');
    await database.execute('delete from labels');
    t = performance.now();
    const again = await seedExamples(database);
    const fill = performance.now() - t;
    console.log(
      `${label.padEnd(22)} seed ${(total / 1000).toFixed(2)} s (${r.answers} answers, ${r.grades} grades, ${r.labels} labels); ` +
        `grades + labels alone ${(fill / 1000).toFixed(2)} s (${again.grades} grades, ${again.labels} labels)`,
    );
  } finally {
    await done();
  }
}

console.log(`machine: ${cpus().length} CPUs, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
await measure('PGlite in memory', async () => {
  const database = await openDatabase({ memory: true });
  return { database, done: () => database.close() };
});
await measure('PGlite on disk', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-seed-bench-'));
  const database = await openDatabase({ dataDir: dir });
  return { database, done: async () => (await database.close(), rmSync(dir, { recursive: true, force: true })) };
});
const adminUrl = process.env.TEST_DATABASE_URL;
if (adminUrl) {
  await measure('PostgreSQL', async () => {
    const name = `assay_bench_seed_${process.pid}`;
    const admin = await openDatabase({ url: adminUrl, max: 1 });
    await admin.execute(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const database = await openDatabase({ url: url.toString(), max: 4 });
    return {
      database,
      done: async () => {
        await database.close();
        await admin.execute(`drop database ${name}`);
        await admin.close();
      },
    };
  });
}
