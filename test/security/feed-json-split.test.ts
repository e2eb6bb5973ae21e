import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../src/errors.js';
import { splitJsonDocument, type JsonValuePiece } from '../../src/vulns/osv/json-split.js';

/** The document cut into pieces of `size` bytes, as a stream would hand it over. */
async function* inPieces(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function split(text: string, size: number, maxValueBytes = 1 << 20): Promise<(string | { oversized: number })[]> {
  const out: (string | { oversized: number })[] = [];
  for await (const piece of splitJsonDocument(inPieces(text, size), 'doc.json', { maxValueBytes }) as AsyncGenerator<JsonValuePiece>)
    out.push('bytes' in piece ? Buffer.from(piece.bytes).toString() : { oversized: piece.oversized });
  return out;
}

const DOC = ' [ {"a":"x,]}\\"{"} , [1,[2]] ,"s\\\\",-1.5e3, true,null,{"b":{"c":[]}}]\n';
const VALUES = ['{"a":"x,]}\\"{"}', '[1,[2]]', '"s\\\\"', '-1.5e3', 'true', 'null', '{"b":{"c":[]}}'];

describe('splitJsonDocument', () => {
  it('yields the elements of a top-level array, whatever the piece boundaries', async () => {
    for (const size of [1, 2, 3, 7, 1000]) expect(await split(DOC, size)).toEqual(VALUES);
    for (const value of VALUES) expect(JSON.parse(value)).toBeDefined();
    expect(await split('[]', 1)).toEqual([]);
    expect(await split('\ufeff[{"a":1}]', 2)).toEqual(['{"a":1}']);
  });

  it('agrees with JSON.parse on arrays of strings full of escapes, cut anywhere', async () => {
    // A fixed pseudo-random sequence: the same cases every run.
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    const alphabet = ['a', '"', '\\', '\\"', ',', ']', '}', '{', '[', 'é', '\n', '\u2028', ' '];
    const text = () => Array.from({ length: next(40) }, () => alphabet[next(alphabet.length)]).join('');
    for (let round = 0; round < 50; round++) {
      const values = Array.from({ length: 1 + next(5) }, () => (next(3) === 0 ? text() : { s: text(), n: [text(), { t: text() }] }));
      const document = JSON.stringify(values, null, next(2) ? 1 : undefined);
      const pieces = await split(document, 1 + next(9));
      expect(pieces.map((p) => JSON.parse(p as string))).toEqual(values);
    }
  });

  it('yields a document that is not an array whole (from its first byte that is not space)', async () => {
    expect(await split(' {"id": "X", "a": [1, 2]} ', 4)).toEqual(['{"id": "X", "a": [1, 2]} ']);
  });

  it('reports a value over the limit by its size and goes on with the next', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(100) });
    expect(await split(`[{"a":1},${big},{"b":2}]`, 8, 50)).toEqual(['{"a":1}', { oversized: big.length }, '{"b":2}']);
    expect(await split(big, 8, 50)).toEqual([{ oversized: big.length }]);
  });

  it('never holds more than the limit of a value, nor more than a piece of the document', async () => {
    let largest = 0;
    const big = `[${JSON.stringify({ pad: 'x'.repeat(10_000) })},{"ok":true}]`;
    const pieces: JsonValuePiece[] = [];
    for await (const p of splitJsonDocument(inPieces(big, 64), 'doc.json', { maxValueBytes: 100, onBuffer: (n) => (largest = Math.max(largest, n)) })) pieces.push(p);
    expect(pieces.map((p) => ('oversized' in p ? 'oversized' : Buffer.from(p.bytes).toString()))).toEqual(['oversized', '{"ok":true}']);
    expect(largest).toBeLessThanOrEqual(100);
  });

  it('throws for an array cut short, a missing or extra comma, or text after the end', async () => {
    for (const text of ['[{"a":1}', '[{"a":1},', '[{"a":1}{"b":2}]', '[{"a":1},]', '[,{"a":1}]', '[{"a":1}] x', '[{"a":"1]', '[1'])
      await expect(split(text, 3), text).rejects.toThrow(InvalidError);
  });
});
