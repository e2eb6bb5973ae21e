/**
 * Loopback receivers for notification tests: an HTTP server that records each request (webhook, Slack and
 * Teams payloads arrive here) and an SMTP server (smtp-server) that records each message. Tests await
 * arrivals as events, never by sleeping.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
}

/** How the receiver answers a request; a promise holds the answer back (a delivery in flight) until it settles. */
export type Responder = (req: ReceivedRequest) => { status: number; body?: string } | Promise<{ status: number; body?: string }>;

export interface HttpReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Resolves with the first request (past or future) that satisfies the predicate. */
  waitFor(predicate: (r: ReceivedRequest) => boolean): Promise<ReceivedRequest>;
  respondWith(responder: Responder): void;
  close(): Promise<void>;
}

function waiter<T>(items: T[], emitter: EventEmitter) {
  return (predicate: (item: T) => boolean) =>
    new Promise<T>((resolve) => {
      const found = items.find(predicate);
      if (found) return resolve(found);
      const listener = (item: T) => {
        if (!predicate(item)) return;
        emitter.off('item', listener);
        resolve(item);
      };
      emitter.on('item', listener);
    });
}

/** Listens on 127.0.0.1 (`port` 0: any free one) and answers the base URL. */
export async function listenOnLoopback(server: http.Server, port = 0): Promise<string> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server, cutting kept-alive connections instead of waiting for them. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** `port` 0 picks a free one; give a port to come back up where an earlier receiver was. */
export async function startHttpReceiver(options: { port?: number; responder?: Responder } = {}): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const emitter = new EventEmitter();
  let responder: Responder = options.responder ?? (() => ({ status: 200, body: 'ok' }));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = null;
      }
      const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json: parsed };
      const answer = await responder(received);
      res.writeHead(answer.status, { 'content-type': 'text/plain' });
      res.end(answer.body ?? '');
      requests.push(received);
      emitter.emit('item', received);
    });
  });
  const url = await listenOnLoopback(server, options.port);
  return {
    url,
    port: Number(new URL(url).port),
    requests,
    waitFor: waiter(requests, emitter),
    respondWith(r) {
      responder = r;
    },
    close: () => closeServer(server),
  };
}

export interface ReceivedMail {
  from: string | undefined;
  to: string[];
  raw: string;
  user: string | undefined;
}

export interface SmtpReceiver {
  port: number;
  messages: ReceivedMail[];
  waitFor(predicate: (m: ReceivedMail) => boolean): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A plain-text SMTP server on loopback, with optional AUTH PLAIN/LOGIN checked against one user. */
export async function startSmtpReceiver(options: { user?: { username: string; password: string } } = {}): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const emitter = new EventEmitter();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: !options.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.user && auth.username === options.user.username && auth.password === options.user.password) return callback(null, { user: auth.username });
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        };
        messages.push(mail);
        emitter.emit('item', mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return { port, messages, waitFor: waiter(messages, emitter), close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
