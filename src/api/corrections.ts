/** Handlers of the Corrections tag: package corrections, shared by every account (src/vulns/corrections/). */
import * as corrections from '../vulns/corrections/corrections.js';
import type { HandlerGroup } from '../server/handler-types.js';

type CorrectionOps = 'get_corrections' | 'add_correction' | 'get_correction_by_uuid' | 'update_correction_by_uuid' | 'delete_correction_by_uuid';

export const correctionHandlers: HandlerGroup<CorrectionOps> = {
  async get_corrections(ctx, { query }) {
    return { status: 200, body: await corrections.getCorrections(ctx.db, query.correction_type) };
  },
  async add_correction(ctx, { body }) {
    return { status: 200, body: await corrections.addCorrection(ctx.services, body) };
  },
  async get_correction_by_uuid(ctx, { params }) {
    return { status: 200, body: await corrections.getCorrection(ctx.db, params.uuid) };
  },
  async update_correction_by_uuid(ctx, { params, body }) {
    return { status: 200, body: await corrections.updateCorrection(ctx.services, params.uuid, body) };
  },
  async delete_correction_by_uuid(ctx, { params }) {
    await corrections.deleteCorrection(ctx.services, params.uuid);
    return { status: 204 };
  },
};
