import { readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { notFound } from '../domain/errors.ts';
import { getPuzzle } from '../services/puzzles.ts';
import type { Web } from './index.tsx';
import { NO_QUERY } from './page-query.ts';
import { SECURITY_HEADERS } from './respond.tsx';
import { projectPath } from '../paths.ts';

/** The one stylesheet and the small scripts, read once at start; puzzle pictures from disk. */

// From src/ in both modes: these files are served as they are, never compiled.
const STATIC_DIR = projectPath('src', 'web', 'static') + sep;
const TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
};
const FILES = ['style.css', 'annotate.js', 'annotate.css'];

export function registerStatic(web: Web): void {
  const assets = new Map(FILES.map((f) => [f, readFileSync(STATIC_DIR + f)]));
  web.page('GET', '/static/:file', 'public', NO_QUERY, (c) => {
    const name = c.req.param('file') ?? '';
    const body = assets.get(name);
    if (!body) throw notFound(`no static file '${name}'`);
    return c.body(new Uint8Array(body), 200, { ...SECURITY_HEADERS, 'Content-Type': TYPES[extname(name)]!, 'Cache-Control': 'no-cache' });
  });

  // Only picture files under the working directory, and only image types: a puzzle's picture path is
  // imported data, so it must not become a way to read arbitrary files.
  web.page('GET', '/pictures/:puzzle', web.readScope, NO_QUERY, async (c) => {
    const p = await getPuzzle(web.api.deps.database, c.req.param('puzzle') ?? '');
    const file = pictureFile(p.picture);
    if (!file) throw notFound(`puzzle '${p.id}' has no picture file`);
    return c.body(new Uint8Array(readFileSync(file)), 200, { ...SECURITY_HEADERS, 'Content-Type': TYPES[extname(file).toLowerCase()]!, 'Cache-Control': 'max-age=3600' });
  });
}

export function pictureFile(picture: string | null): string | null {
  if (!picture || /^[a-z]+:/i.test(picture)) return null;
  const root = process.cwd();
  const file = resolve(root, picture);
  const rel = relative(root, file);
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  if (!TYPES[extname(file).toLowerCase()] || extname(file) === '.css' || extname(file) === '.js') return null;
  try {
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}
