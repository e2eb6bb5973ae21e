import { describe, expect, it } from 'vitest';
import { dueAtOrWithin, nextSlot } from '../../../src/jobs/periodic.js';

const at = (iso: string) => new Date(iso);

describe('periodic slots', () => {
  it('aligns interval slots to the epoch, so every node computes the same ones', async () => {
    expect((await nextSlot({ everyMs: 2000 }, at('2026-11-26T10:00:01.500Z')))?.toISOString()).toBe('2026-11-26T10:00:02.000Z');
    // Strictly after: a run for slot S asks for the slot after S.
    expect((await nextSlot({ everyMs: 2000 }, at('2026-11-26T10:00:02.000Z')))?.toISOString()).toBe('2026-11-26T10:00:04.000Z');
  });

  it('reads cron schedules in UTC, with or without seconds', async () => {
    expect((await nextSlot({ cron: '*/15 * * * *' }, at('2026-11-26T10:07:00.000Z')))?.toISOString()).toBe('2026-11-26T10:15:00.000Z');
    expect((await nextSlot({ cron: '17 */6 * * *' }, at('2026-11-26T10:07:00.000Z')))?.toISOString()).toBe('2026-11-26T12:17:00.000Z');
    expect((await nextSlot({ cron: '*/5 * * * * *' }, at('2026-11-26T10:07:01.000Z')))?.toISOString()).toBe('2026-11-26T10:07:05.000Z');
  });

  it("asks the owner for 'nextAt' schedules, bounded by the longest wait", async () => {
    const after = at('2026-11-26T10:00:00.000Z');
    expect((await nextSlot({ nextAt: async (a) => new Date(a.getTime() + 42) }, after))?.toISOString()).toBe('2026-11-26T10:00:00.042Z');
    expect(dueAtOrWithin(null, after, 60_000).toISOString()).toBe('2026-11-26T10:01:00.000Z');
    expect(dueAtOrWithin('2026-11-26T10:00:10.000Z', after, 60_000).toISOString()).toBe('2026-11-26T10:00:10.000Z');
    expect(dueAtOrWithin('2026-11-26T11:00:00.000Z', after, 60_000).toISOString()).toBe('2026-11-26T10:01:00.000Z');
    // Already due: just after `after`, never in the past (the next slot must follow the one that ran).
    expect(dueAtOrWithin('2026-11-26T09:00:00.000Z', after, 60_000).toISOString()).toBe('2026-11-26T10:00:00.001Z');
  });
});
