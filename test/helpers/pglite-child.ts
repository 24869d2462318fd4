// A second process on a PGlite directory, for the ownership tests. Prints one line when it is in the
// state asked for, then waits to be killed (or for stdin to close).
//   own DIR            open DIR (becoming its owner), print "owner <pid>"
//   claim DIR          claim DIR's lock, print "owned" or "taken <pid>"
//   tx DIR TABLE ID    open DIR through its owner, BEGIN, insert ID into TABLE, print "in-tx"
import { claimOwnership } from '../../src/db/pglite-owner.ts';
import { openDatabase } from '../../src/db/client.ts';

const [mode, dir, table, id] = process.argv.slice(2);
const wait = () => new Promise<void>((resolve) => process.stdin.on('end', resolve).resume());

if (mode === 'own') {
  const database = await openDatabase({ dataDir: dir! });
  process.stdout.write(`owner ${process.pid}\n`);
  await wait();
  await database.close();
} else if (mode === 'claim') {
  const c = claimOwnership(dir!);
  process.stdout.write(c.owned ? 'owned\n' : `taken ${c.owner.pid}\n`);
  await wait();
  if (c.owned) c.lock.release();
} else if (mode === 'tx') {
  const database = await openDatabase({ dataDir: dir! });
  const sql = (database.db as unknown as { $client: any }).$client;
  const conn = await sql.reserve();
  await conn.unsafe('begin');
  await conn.unsafe(`insert into ${table} values (${Number(id)})`);
  process.stdout.write(`in-tx ${database.owner ? 'client' : 'owner'}\n`);
  await wait();
} else {
  throw new Error(`unknown mode ${mode}`);
}
