/**
 * The terminal log format: pino's own lines (written by a real pino logger) as one readable line each, bounded, with
 * nothing in a value able to break the line or act on the terminal; lines that are not pino's JSON shown as they are.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_LINE_CHARS, formatLogLine } from '../../../src/util/log-format.js';
import { LogSink } from '../../../src/util/log-sink.js';

/** What one pino call serializes (with the service's base field), as the sink receives it. */
function pinoLine(write: (log: pino.Logger) => void): string {
  const lines: string[] = [];
  const log = pino({ level: 'trace', base: { service: 'vigil' } }, { write: (line: string) => void lines.push(line) });
  write(log);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

const CLOCK = /^\d{2}:\d{2}:\d{2}\.\d{3} /;

describe('formatLogLine', () => {
  it('writes time, level, message and the other fields as key=value, one line', () => {
    const line = formatLogLine(pinoLine((log) => log.info({ url: 'http://127.0.0.1:8228', storage: 'SQLite at ./data/vigil.sqlite', port: 8228, tls: false }, 'listening')));
    expect(line).toMatch(CLOCK);
    expect(line.replace(CLOCK, '')).toBe('INFO  listening url=http://127.0.0.1:8228 storage="SQLite at ./data/vigil.sqlite" port=8228 tls=false\n');
    expect(line).not.toMatch(/pid=|hostname=|service=|level=|time=/);
  });

  it('uses the local time of the entry, and names every pino level', () => {
    const at = new Date(2026, 10, 26, 8, 5, 9, 42).getTime();
    expect(formatLogLine(JSON.stringify({ level: 40, time: at, msg: 'careful' }))).toBe('08:05:09.042 WARN  careful\n');
    const names = (['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const).map((level) => formatLogLine(pinoLine((log) => log[level]('x'))).slice(13, 18));
    expect(names).toEqual(['TRACE', 'DEBUG', 'INFO ', 'WARN ', 'ERROR', 'FATAL']);
  });

  it('shows nested fields with dotted keys, a request briefly, and an error by type, message and where it was thrown', () => {
    const nested = formatLogLine(pinoLine((log) => log.info({ outcome: { slot: '2026-01-01', counts: { apk: 2, npm: 3 } }, tags: ['a', 'b c'] }, 'done')));
    expect(nested.replace(CLOCK, '')).toBe('INFO  done outcome.slot=2026-01-01 outcome.counts.apk=2 outcome.counts.npm=3 tags="[\\"a\\",\\"b c\\"]"\n');

    const request = JSON.stringify({ level: 30, time: 0, req: { id: 'r1', method: 'POST', url: '/v2/images', headers: { authorization: '[Redacted]' } }, res: { statusCode: 201, headers: {} }, responseTime: 12, msg: 'request completed' });
    expect(formatLogLine(request).replace(CLOCK, '')).toBe('INFO  request completed req="POST /v2/images" status=201 responseTime=12\n');

    const err = Object.assign(new TypeError('bad thing\nsecond line'), { code: 'E_BAD' });
    const failed = formatLogLine(pinoLine((log) => log.error({ err }, 'report query failed')));
    expect(failed).toMatch(/ERROR report query failed err="TypeError: bad thing\\nsecond line" err\.at="?.*log-format\.test\.ts:\d+:\d+\)?"? err\.code=E_BAD\n$/);
    expect(failed.split('\n')).toHaveLength(2); // one line, its newline
  });

  it('escapes control characters, so a message cannot add lines or drive the terminal', () => {
    const line = formatLogLine(pinoLine((log) => log.warn({ name: 'a\u001b[31mred' }, 'line one\nline two\r\u0007')));
    expect(line.replace(CLOCK, '')).toBe('WARN  line one\\nline two\\r\\u0007 name="a\\u001b[31mred"\n');
    expect(line.slice(0, -1)).not.toMatch(/[\u0000-\u001f]/);
  });

  it('bounds values, fields and the line, saying what was cut', () => {
    const long = formatLogLine(pinoLine((log) => log.info({ blob: 'x'.repeat(100_000) }, 'm'.repeat(10_000))));
    expect(long.length).toBeLessThanOrEqual(DEFAULT_MAX_LINE_CHARS + 1);
    expect(long).toContain('… (cut: 10000 characters)');
    expect(long).toContain('… (cut: 100000 characters)');

    const many = formatLogLine(JSON.stringify({ level: 30, time: 0, msg: 'wide', ...Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`f${i}`, i])) }));
    expect(many).toContain('f59=59 (440 more fields)\n');
    const small = formatLogLine(pinoLine((log) => log.info({ a: 'y'.repeat(300) }, 'short')), { maxLineChars: 120, maxValueChars: 50 });
    expect(small.length).toBeLessThanOrEqual(121);
    expect(small).toContain('(cut: ');

    const huge = formatLogLine(`{"level":30,"msg":"${'z'.repeat(3 << 20)}"}`);
    expect(huge.length).toBeLessThanOrEqual(DEFAULT_MAX_LINE_CHARS + 1);
  });

  it('shows a line that is not pino JSON as it is, escaped and bounded', () => {
    expect(formatLogLine('plain text from somewhere\n')).toBe('plain text from somewhere\n');
    expect(formatLogLine('{"broken": \u001b')).toBe('{"broken": \\u001b\n');
    expect(formatLogLine('[1,2]\n')).toBe('[1,2]\n');
  });

  it('colours the level only when asked', () => {
    const line = pinoLine((log) => log.error('boom'));
    expect(formatLogLine(line)).not.toContain('\u001b');
    expect(formatLogLine(line, { color: true }).replace(CLOCK, '')).toBe('\u001b[31mERROR\u001b[0m boom\n');
  });
});

describe('LogSink with the terminal format', () => {
  it('formats every line it writes, its own dropped-lines notice included', async () => {
    const written: string[] = [];
    let release: (() => void) | null = null;
    const out = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        if (written.length === 1) release = done; // the first write stalls until released: the reader falls behind
        else done();
      },
    });
    const sink = new LogSink(out, 100, (line) => formatLogLine(line));
    const log = pino({ base: null }, sink);
    log.info({ n: 1 }, 'first');
    for (let i = 0; i < 5; i++) log.info({ n: i }, 'x'.repeat(60));
    (release as unknown as () => void)();
    log.info('after');
    await sink.drained();
    const lines = written.join('').split('\n').filter(Boolean).map((l) => l.replace(CLOCK, ''));
    // The limit counts formatted lines: 'first' and one long line fit in 100 characters, the other four wait for nobody.
    expect(lines).toEqual([
      'INFO  first n=1',
      `INFO  ${'x'.repeat(60)} n=0`,
      'WARN  4 log lines were dropped: the log reader did not keep up',
      'INFO  after',
    ]);
  });
});
