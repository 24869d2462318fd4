import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { notFound } from '../domain/errors.ts';
import { definePlainRoute, type Api } from './define-route.ts';

/**
 * Swagger UI at /docs from the swagger-ui-dist package on disk: no CDN, so the docs render offline.
 * Only an allowlist of its files is served (no path from the URL ever reaches the filesystem).
 */
const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
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
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    // No online validator badge: the page must not reach out of the machine.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

const cache = new Map<string, Uint8Array>();
function asset(name: string): Uint8Array {
  let body = cache.get(name);
  if (!body) cache.set(name, (body = new Uint8Array(readFileSync(join(DIST, name)))));
  return body;
}

export function registerDocs(api: Api): void {
  definePlainRoute(api, 'GET', '/docs', (c) => c.html(PAGE));
  definePlainRoute(api, 'GET', '/docs/:file', (c) => {
    const file = c.req.param('file') ?? '';
    if (file === 'init.js') return c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
    const type = ASSETS[file];
    if (!type) throw notFound(`/docs/${file}: no such file`);
    return c.body(asset(file) as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' });
  });
}
