/**
 * Managing package corrections: create, read, change, delete. A change alters what matches in every account, so
 * it queues a re-match (`corrections_rematch`, in the same transaction as the change) of the images the old or new
 * match applies to; the re-match writes each image's findings diff with its `vuln_update` events (rematch.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/index.js';
import { InvalidError, NotFoundError } from '../../errors.js';
import { defineJob } from '../../jobs/definition.js';
import type { Services } from '../../service.js';
import { nowIso } from '../../util/time.js';
import { changeBatcher, type FeedSyncHooks } from '../feeds.js';
import { rematchImages } from '../rematch.js';
import { imagesMatchedBy } from './affected-images.js';
import { checkCorrection, MAX_CORRECTIONS, type Correction, type CorrectionInput, type CorrectionMatch, type CorrectionType } from './model.js';
import { countCorrections, deleteCorrectionRow, findCorrection, insertCorrection, listCorrections, updateCorrectionRow } from './store.js';

const FIELD_MATCH_SCHEMA = {
  type: 'object',
  properties: { field_name: { type: 'string' }, field_value: { type: 'string' } },
  required: ['field_name', 'field_value'],
  additionalProperties: false,
};

/** Re-matches the images the matches (a correction's before and after) apply to. */
export const CORRECTIONS_REMATCH_JOB = defineJob<{ matches: CorrectionMatch[] }>({
  kind: 'corrections_rematch',
  role: 'feeds',
  maxAttempts: 2,
  schema: {
    type: 'object',
    properties: {
      matches: {
        type: 'array',
        maxItems: 2,
        items: {
          type: 'object',
          properties: { type: { type: 'string' }, field_matches: { type: 'array', items: FIELD_MATCH_SCHEMA } },
          required: ['type'],
          additionalProperties: false,
        },
      },
    },
    required: ['matches'],
    additionalProperties: false,
  },
});

/** The changed images are handed on as a feed sync's are (for policy re-evaluation). */
export function correctionsRematchJob(services: Services, hooks: FeedSyncHooks) {
  return async (payload: { matches: CorrectionMatch[] }): Promise<void> => {
    const images = await imagesMatchedBy(services.db, payload.matches);
    const changed = changeBatcher(hooks);
    const stats = await rematchImages(services.db, { images }, { onImageChanged: (account, digest) => changed.add(account, digest) });
    await changed.flushAll();
    services.log.info({ rematch: stats }, 're-matched the images a package correction applies to');
  };
}

async function queueRematch(services: Services, trx: Db, matches: CorrectionMatch[]): Promise<void> {
  await services.jobs.enqueue(CORRECTIONS_REMATCH_JOB, { matches }, {}, trx);
}

/** The stored form of a correction's match (no empty field_matches list). */
function normalisedInput(input: CorrectionInput): CorrectionInput {
  checkCorrection(input);
  const fieldMatches = input.match.field_matches ?? [];
  return {
    type: input.type,
    ...(input.description !== undefined ? { description: input.description } : {}),
    match: { type: input.match.type, ...(fieldMatches.length ? { field_matches: fieldMatches.map(({ field_name, field_value }) => ({ field_name, field_value })) } : {}) },
    replace: input.replace.map(({ field_name, field_value }) => ({ field_name, field_value })),
  };
}

export function getCorrections(db: Db, type?: CorrectionType): Promise<Correction[]> {
  return listCorrections(db, type);
}

export async function getCorrection(db: Db, uuid: string): Promise<Correction> {
  const found = await findCorrection(db, uuid);
  if (!found) throw new NotFoundError(`correction '${uuid}' does not exist`, { uuid });
  return found;
}

export async function addCorrection(services: Services, input: CorrectionInput): Promise<Correction> {
  const body = normalisedInput(input);
  const now = nowIso();
  const created: Correction = { uuid: randomUUID(), ...body, created_at: now, last_updated: now };
  await services.db.transaction(async (trx) => {
    if ((await countCorrections(trx)) >= MAX_CORRECTIONS)
      throw new InvalidError(`at most ${MAX_CORRECTIONS} corrections can be kept; delete one first`, { max_corrections: MAX_CORRECTIONS });
    await insertCorrection(trx, created);
    await queueRematch(services, trx, [created.match]);
  });
  services.worker.wake();
  return created;
}

export async function updateCorrection(services: Services, uuid: string, input: CorrectionInput): Promise<Correction> {
  const body = normalisedInput(input);
  const updated = await services.db.transaction(async (trx) => {
    const before = await getCorrection(trx, uuid);
    const after: Correction = { ...body, uuid, created_at: before.created_at, last_updated: nowIso() };
    await updateCorrectionRow(trx, after);
    await queueRematch(services, trx, [before.match, after.match]);
    return after;
  });
  services.worker.wake();
  return updated;
}

export async function deleteCorrection(services: Services, uuid: string): Promise<void> {
  await services.db.transaction(async (trx) => {
    const before = await getCorrection(trx, uuid);
    await deleteCorrectionRow(trx, uuid);
    await queueRematch(services, trx, [before.match]);
  });
  services.worker.wake();
}
