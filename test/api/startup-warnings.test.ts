/** Issue 17: start-up names unknown VIGIL_ variables (a typo keeps a setting at its default) and starts anyway. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../support/db.js';
import { startVigil, stopVigil, type VigilChild } from '../support/vigil-process.js';

/** Starting a child process (TypeScript compiled on the fly) takes seconds on a loaded machine. */
const CHILD_TEST_TIMEOUT_MS = 60_000;
let scratch: ScratchDatabase;
let child: VigilChild | undefined;

beforeAll(async () => {
  scratch = await createScratchDatabase();
});
afterAll(async () => {
  await stopVigil(child, 'SIGKILL');
  await scratch?.drop();
});

describe('start-up', () => {
  it('warns once per unknown VIGIL_ variable, naming the closest setting, and serves', async () => {
    child = await startVigil(scratch, { VIGIL_FEED_SOURCE: 'default', VIGIL_NOTHING_LIKE_IT: '1' });
    const warnings = child
      .output()
      .split('\n')
      .filter((line) => line.includes('is not a Vigil setting'))
      .map((line) => JSON.parse(line) as { level: number; variable: string; did_you_mean: string | null; msg: string });
    expect(warnings).toEqual([
      expect.objectContaining({ level: 40, variable: 'VIGIL_FEED_SOURCE', did_you_mean: 'VIGIL_FEED_SOURCES', msg: expect.stringContaining('did you mean VIGIL_FEED_SOURCES?') }),
      expect.objectContaining({ level: 40, variable: 'VIGIL_NOTHING_LIKE_IT', did_you_mean: null }),
    ]);
  }, CHILD_TEST_TIMEOUT_MS);
});
