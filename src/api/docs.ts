import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { notFound } from '../domain/errors.ts';
import { definePlainRoute, type Api } from './define-route.ts';
import { projectPath } from '../paths.ts';

/**
 * Swagger UI at /docs from the swagger-ui-dist package on disk: no CDN, so the docs render offline.
 * Only an allowlist of its files is served (no path from the URL ever reaches the filesystem).
 */
const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>assay API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="stylesheet" href="/docs/index.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** The Swagger UI configuration, a file of this app (the CSP forbids inline script). */
const INIT = readFileSync(projectPath('src', 'api', 'docs', 'swagger-init.js'));

/**
 * /docs runs a large third-party bundle next to a pasted API key, so its page gets a CSP as strict
 * as the pages': scripts, styles and requests only from this origin (no inline script, no eval),
 * pictures also from data: URLs (Swagger UI's icons), nothing may frame it.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const DOCS_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

const cache = new Map<string, Uint8Array>();
function asset(name: string): Uint8Array {
  let body = cache.get(name);
  if (!body) cache.set(name, (body = new Uint8Array(readFileSync(join(DIST, name)))));
  return body;
}

export function registerDocs(api: Api): void {
  definePlainRoute(api, 'GET', '/docs', (c) => c.body(PAGE, 200, { ...DOCS_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }));
  definePlainRoute(api, 'GET', '/docs/:file', (c) => {
    const file = c.req.param('file') ?? '';
    if (file === 'init.js') return c.body(new Uint8Array(INIT), 200, { ...DOCS_HEADERS, 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
    const type = ASSETS[file];
    if (!type) throw notFound(`/docs/${file}: no such file`);
    return c.body(asset(file) as Uint8Array<ArrayBuffer>, 200, { ...DOCS_HEADERS, 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' });
  });
}
