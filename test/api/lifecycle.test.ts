import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { raw } from '../support/http.js';
import { startTestServer } from '../support/server.js';

describe('service lifecycle', () => {
  it('answers health 503 in the error shape when the database does not answer', async () => {
    const server = await startTestServer();
    try {
      // The loops that poll the database stop first: a pool destroyed under one of their queries can leave
      // their next acquire pending for knex's acquire timeout (60 s), and close() waits for them.
      const { notifications, worker, reports } = server.running.services;
      notifications.dispatcher.unlisten();
      await notifications.dispatcher.settled();
      await worker.stop();
      await reports.refresher.stop();
      await reports.metrics.stop();
      await server.running.services.db.destroy();
      const res = await raw(server.url, 'GET', '/v2/health', { auth: null });
      expect(res.status).toBe(503);
      expect(res.json).toMatchObject({ code: 503, error_type: 'service_unavailable' });
    } finally {
      await server.close();
    }
  });

  it('lets an in-flight request finish on shutdown, then refuses new connections', async () => {
    const server = await startTestServer();
    const { port } = new URL(server.url);
    // Send headers and half the body; once the server has the request, start shutting down, then finish the body.
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v2/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': 63 } });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
    const arrived = new Promise<void>((resolve) => server.running.server.once('request', () => resolve()));
    req.write('grant_type=password&username=admin&');
    await arrived;
    const closing = server.close();
    req.end('password=admin-test-password');
    const res = await response;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).token_type).toBe('Bearer');
    await closing;
    await expect(fetch(`${server.url}/v2/health`)).rejects.toThrow();
  });
});
