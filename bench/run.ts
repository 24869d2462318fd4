// `npm run bench -- <name>` runs bench/<name>.ts; with no name, lists them.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.replace(/\.ts$/, ''));
const name = process.argv[2];
if (!name || !names.includes(name)) {
  console.log(`usage: npm run bench -- <${names.join('|')}>`);
  process.exitCode = name ? 2 : 0;
} else {
  await import(pathToFileURL(join(dir, `${name}.ts`)).href);
}
