// Swagger UI for /docs, served as a file from this app: the page's CSP allows no inline script.
// persistAuthorization stays false: a pasted API key lives only in this tab's memory, never in
// localStorage (Swagger UI writes the 'authorized' entry only when the option is on).
// queryConfigEnabled stays false: ?url= / ?configUrl= must not load another spec into the page.
window.addEventListener('load', function () {
  'use strict';
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: false,
    queryConfigEnabled: false,
    // No online validator badge: the page must not reach out of the machine.
    validatorUrl: null,
    // BaseLayout: no top bar, so no field that loads another spec URL, and no logo with an inline
    // <style> element (which the CSP would block).
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
