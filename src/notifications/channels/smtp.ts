/**
 * E-mail over SMTP with nodemailer: one short-lived transport per delivery, connected to an address the
 * outbound policy accepted (the name is resolved here, not by nodemailer, so a name that resolves to an
 * internal address cannot slip past the policy), with the configured name kept for SNI and certificate checks.
 */
import { isIP } from 'node:net';
import { createTransport, type NodemailerError, type SMTPSentMessageInfo, type SMTPTransportOptions } from 'nodemailer';
import type { DeliveryOptions, DeliveryOutcome, NotificationMessage, SmtpTarget } from '../types.js';
import { OutboundError, unreachableMessage } from '../../outbound/errors.js';
import { clip, describeNotification, type NotificationDescription, type NotificationSeverity } from './describe.js';
import { failedOutcome, startClock, summarize, thrownOutcome, type DeliveryChannel } from './outcome.js';

export interface EmailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  headers: Record<string, string>;
}

const SUBJECT_MAX_CHARS = 200;
const TITLE_COLOR: Record<NotificationSeverity, string> = { error: '#b00020', warning: '#9a6700', info: 'inherit' };

export function emailMessage(message: NotificationMessage, target: Pick<SmtpTarget, 'from' | 'to'>): EmailMessage {
  const description = describeNotification(message);
  return {
    from: target.from,
    to: target.to,
    subject: clip(oneLine(`[Vigil] ${description.title}`), SUBJECT_MAX_CHARS),
    text: emailText(description, message.id),
    html: emailHtml(description, message.id),
    // stable across retries, so a mail client shows a re-sent notification once
    messageId: `<${message.id}@vigil>`,
    headers: { 'X-Vigil-Notification-Id': message.id },
  };
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export const smtpChannel: DeliveryChannel<SmtpTarget> = {
  kind: 'smtp',
  async deliver(target, message, options) {
    const elapsed = startClock();
    const secrets = credentialForms(target);
    try {
      const info = await withDeadline(target.timeoutMs, (signal) => send(target, message, options, signal));
      return sentOutcome(info, elapsed(), secrets);
    } catch (err) {
      return smtpFailure(err, elapsed(), secrets, target, options);
    }
  },
};

async function send(target: SmtpTarget, message: NotificationMessage, options: DeliveryOptions, signal: AbortSignal): Promise<SMTPSentMessageInfo> {
  const { address } = await options.policy.resolve(target.host);
  signal.throwIfAborted();
  const transport = createTransport(transportOptions(target, address));
  try {
    return await transport.sendMail({ ...emailMessage(message, target), xMailer: options.userAgent, signal });
  } finally {
    transport.close();
  }
}

function transportOptions(target: SmtpTarget, address: string): SMTPTransportOptions {
  return {
    host: address,
    port: target.port,
    secure: target.useTls,
    name: 'vigil',
    // SNI and the certificate check use the configured name; an IP literal is checked as an IP (no SNI)
    tls: { rejectUnauthorized: target.verifyTls, ...(isIP(target.host) ? {} : { servername: target.host }) },
    auth: target.username ? { user: target.username, pass: target.password ?? '' } : undefined,
    connectionTimeout: target.timeoutMs,
    greetingTimeout: target.timeoutMs,
    socketTimeout: target.timeoutMs,
    // the message is built from our own text: never let content reach for files or URLs
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  };
}

// --- the overall deadline ------------------------------------------------------------------------------------

class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/**
 * Runs `work` under one deadline covering name resolution, connecting, the dialogue and the reply: the
 * per-phase timeouts of nodemailer alone let a slowly trickling server hold an attempt far longer.
 */
async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const reason = new DeadlineExceeded(ms);
      controller.abort(reason); // nodemailer closes the connection on abort
      reject(reason);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

// --- outcomes ------------------------------------------------------------------------------------------------

function sentOutcome(info: SMTPSentMessageInfo, latencyMs: number, secrets: readonly string[]): DeliveryOutcome {
  const reply = summarize(String(info.response ?? ''), secrets);
  const rejected = info.rejected?.length ?? 0;
  return {
    ok: true,
    httpStatus: null,
    smtpResponse: reply,
    response: rejected > 0 ? summarize(`${reply} (${rejected} of the recipients refused)`, secrets) : reply,
    error: null,
    latencyMs,
    retryable: false,
  };
}

function smtpFailure(err: unknown, latencyMs: number, secrets: readonly string[], target: SmtpTarget, options: DeliveryOptions): DeliveryOutcome {
  const unreachableOutcome = (detail: string) => {
    const server = `${isIP(target.host) === 6 ? `[${target.host}]` : target.host}:${target.port}`;
    options.policy.report(server, detail);
    return failedOutcome({ error: `unreachable: ${unreachableMessage(server)}`, retryable: true, latencyMs });
  };
  // no answer, whatever the reason (refused by the policy, closed port, silence): one outcome, the reason logged
  if (err instanceof OutboundError && err.reason === 'unreachable') return unreachableOutcome(err.detail);
  if (err instanceof DeadlineExceeded) return unreachableOutcome(err.message);
  if (!isNodemailerError(err)) return thrownOutcome(err, latencyMs, secrets);
  if (isNoAnswer(err)) return unreachableOutcome(`${err.code}: ${summarize(err.message, secrets)}`);
  const reply = typeof err.response === 'string' ? summarize(err.response, secrets) : null;
  return failedOutcome({
    error: summarize(`${err.code ?? 'error'}: ${err.message}`, secrets),
    smtpResponse: reply,
    response: reply ?? '',
    retryable: isRetryableSmtpError(err),
    latencyMs,
  });
}

/** Failures that repeat however often the same message is sent: configuration, credentials, the message itself. */
const PERMANENT_CODES = new Set(['EAUTH', 'ENOAUTH', 'EOAUTH2', 'ECONFIG', 'ETLS', 'EREQUIRETLS', 'EENVELOPE', 'EMESSAGE', 'EMAXRECIPIENTS']);

function isRetryableSmtpError(err: NodemailerError): boolean {
  // credentials stay wrong whatever the server's reply code (535, or 454 from some servers)
  if (err.code === 'EAUTH' || err.code === 'ENOAUTH') return false;
  // RFC 5321: 4yz is transient, 5yz permanent
  if (typeof err.responseCode === 'number') return err.responseCode < 500;
  if (isCertificateProblem(err)) return false;
  // the rest failed before the server judged anything (ECONNECTION, ESOCKET, ETIMEDOUT, EDNS): worth retrying
  return !PERMANENT_CODES.has(err.code ?? '');
}

/** Failures before the server said anything: connecting, name resolution, the greeting's wait, a dropped socket. */
function isNoAnswer(err: NodemailerError): boolean {
  if (typeof err.responseCode === 'number' || isCertificateProblem(err)) return false;
  return err.code === 'ECONNECTION' || err.code === 'EDNS' || err.code === 'ETIMEDOUT' || err.code === 'ESOCKET';
}

/** A certificate the server will keep presenting (self-signed, expired, wrong name); nodemailer reports it as ESOCKET. */
function isCertificateProblem(err: NodemailerError): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/.test(`${err.originalCode ?? ''} ${err.code ?? ''}`);
}

/** Nodemailer's errors, and the socket errors it passes on, carry a string code; OutboundError and ours do not. */
function isNodemailerError(err: unknown): err is NodemailerError {
  return err instanceof Error && typeof (err as NodemailerError).code === 'string';
}

/** The password as typed and as SMTP AUTH sends it (LOGIN: base64 of the password; PLAIN: base64 of \0user\0pass). */
function credentialForms(target: SmtpTarget): string[] {
  const password = target.password ?? '';
  if (!password) return [];
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  return [password, base64(password), base64(`\u0000${target.username ?? ''}\u0000${password}`)];
}

// --- the message ---------------------------------------------------------------------------------------------

function emailText(description: NotificationDescription, id: string): string {
  const facts = description.facts.map((fact) => `${fact.name}: ${fact.value}`);
  return [description.title, '', description.summary, '', ...facts, '', '-- ', `Sent by Vigil (notification ${id}).`, ''].join('\n');
}

function emailHtml(description: NotificationDescription, id: string): string {
  const rows = description.facts.map(
    (fact) => `<tr><th align="left" valign="top" style="padding:2px 12px 2px 0">${escapeHtml(fact.name)}</th><td>${multiline(fact.value)}</td></tr>`,
  );
  return [
    '<!DOCTYPE html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(description.title)}</title></head>`,
    '<body style="font-family:sans-serif">',
    `<h2 style="color:${TITLE_COLOR[description.severity]}">${escapeHtml(description.title)}</h2>`,
    `<p>${multiline(description.summary)}</p>`,
    `<table style="border-collapse:collapse">${rows.join('')}</table>`,
    `<p style="color:#666;font-size:small">Sent by Vigil (notification ${escapeHtml(id)}).</p>`,
    '</body></html>',
  ].join('\n');
}

function multiline(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, '<br>');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
