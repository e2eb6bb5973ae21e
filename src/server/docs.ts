/** Swagger UI for the served spec, from the swagger-ui-dist package (no CDN). Outside the spec on purpose. */
import express, { Router } from 'express';
import swaggerUiDist from 'swagger-ui-dist';

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Vigil API</title>
  <link rel="stylesheet" href="./swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="./swagger-ui-bundle.js"></script>
  <script src="./swagger-ui-standalone-preset.js"></script>
  <script src="./swagger-initializer.js"></script>
</body>
</html>
`;

const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '../openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

export function docsRouter(): Router {
  const router = Router({ strict: true });
  router.get('/', (req, res) => {
    if (!req.originalUrl.split('?')[0].endsWith('/')) return res.redirect(301, req.baseUrl + '/');
    res.type('html').send(INDEX_HTML);
  });
  router.get('/swagger-initializer.js', (_req, res) => res.type('application/javascript').send(INITIALIZER));
  router.use(express.static(swaggerUiDist.getAbsoluteFSPath(), { index: false, fallthrough: true }));
  return router;
}
