/**
 * When the WAL checkpointer thread copies pages (src/db/wal-checkpoint-schedule.ts): once commits pause, and at
 * most `maxDelayMs` apart while they keep coming. The clock is the test's: a look is one call.
 */
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_MAX_DELAY_MS, CheckpointSchedule } from '../../../src/db/wal-checkpoint-schedule.js';

/** The looks, every `step` ms, with the data_version each saw; the times at which a checkpoint was due. */
function dueTimes(schedule: CheckpointSchedule, versions: number[], step = 200): number[] {
  return versions.flatMap((version, i) => (schedule.due(version, i * step) ? [i * step] : []));
}

describe('WAL checkpoint schedule', () => {
  it('checkpoints at the first look that finds no new commit', () => {
    // Commits seen at the looks at 0, 200 and 400 ms; none by 600.
    expect(dueTimes(new CheckpointSchedule(2000), [1, 2, 3, 3, 3, 3])).toEqual([600]);
  });

  it('under commits that never pause, checkpoints once per delay instead of at every look', () => {
    const versions = Array.from({ length: 31 }, (_, i) => i + 1);
    // Pending from 0 ms: due at 2 000; pending again from 2 200: due at 4 200, and so on.
    expect(dueTimes(new CheckpointSchedule(2000), versions)).toEqual([2000, 4200]);
  });

  it('stays idle while nothing is committed, and wakes for the next commit', () => {
    const schedule = new CheckpointSchedule(2000);
    expect(dueTimes(schedule, [7, 7, 7, 7, 8, 8])).toEqual([200, 1000]);
  });

  it('with no delay, checkpoints at every look that finds a commit (the thread as it was)', () => {
    expect(dueTimes(new CheckpointSchedule(0), [1, 2, 2, 3, 4, 4])).toEqual([0, 200, 600, 800]);
  });

  it('by default collects commits for CHECKPOINT_MAX_DELAY_MS', () => {
    const looks = CHECKPOINT_MAX_DELAY_MS / 200 + 1;
    const versions = Array.from({ length: looks }, (_, i) => i + 1);
    expect(dueTimes(new CheckpointSchedule(), versions)).toEqual([CHECKPOINT_MAX_DELAY_MS]);
  });
});
