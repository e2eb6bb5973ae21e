/**
 * Inputs of any length never go through a spread into call arguments (`push(...items)`, `Math.max(...items)`),
 * which throws "Maximum call stack size exceeded" somewhere past 100 000 items (issue 14, item 5: the feed
 * import failed so on 150 000 changed keys). The helpers that replace it, and one parser that used it on a
 * file from an image.
 */
import { describe, expect, it } from 'vitest';
import { parsePackageLock } from '../../src/ecosystems/npm/lockfile.js';
import { appendAll, maxOf } from '../../src/util/arrays.js';

const MANY = 500_000;

describe('arrays of any length', () => {
  it('appendAll and maxOf take half a million items', () => {
    const target = [0];
    appendAll(target, Array.from({ length: MANY }, (_, i) => i + 1));
    expect(target).toHaveLength(MANY + 1);
    expect(maxOf(target, -1)).toBe(MANY);
    expect(maxOf([], -1)).toBe(-1);
  });

  it('a package-lock.json of 150 000 installed packages is catalogued whole', () => {
    const count = 150_000;
    const packages: Record<string, unknown> = { '': { name: 'app', version: '1.0.0' } };
    for (let i = 0; i < count; i++) packages[`node_modules/p${i}`] = { version: '1.0.0' };
    const found = parsePackageLock('app/package-lock.json', Buffer.from(JSON.stringify({ name: 'app', lockfileVersion: 3, packages })));
    expect(found).toHaveLength(count);
  });
});
