import { describe, expect, it } from 'vitest';
import { secretScansGate } from '../../../../src/policy/gates/secret_scans.js';

describe('secret_scans', () => {
  it('has no evaluate: the analysis stores no file contents to search', () => {
    expect(secretScansGate.triggers.map((t) => [t.name, t.evaluate])).toEqual([['content_regex_checks', undefined]]);
  });
});
