/** Handlers of the Imports tag for source repositories: the operation, its SBOM upload, and finalize. */
import { NotFoundError } from '../errors.js';
import * as imports from '../images/imports.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { finalizeSourceImport } from '../sources/finalize.js';
import { sourceManifest } from './sources.js';

type SourceImportOps =
  | 'list_sources_operations'
  | 'create_sources_operation'
  | 'get_sources_operation'
  | 'invalidate_sources_operation'
  | 'upload_import_sources_sbom'
  | 'get_import_sources_sbom'
  | 'finalize_operation';

const operationShape = (o: imports.ImportOperationRecord) => ({ uuid: o.uuid, status: o.status, created_at: o.created_at, expires_at: o.expires_at });

export const sourceImportHandlers: HandlerGroup<SourceImportOps> = {
  async list_sources_operations(ctx) {
    return { status: 200, body: (await imports.listOperations(ctx.db, ctx.account.name, 'source')).map(operationShape) };
  },
  async create_sources_operation(ctx) {
    return { status: 200, body: operationShape(await imports.createOperation(ctx.db, ctx.account.name, 'source')) };
  },
  async get_sources_operation(ctx, { params }) {
    return { status: 200, body: operationShape(await imports.getOperation(ctx.db, ctx.account.name, params.operation_id, 'source')) };
  },
  async invalidate_sources_operation(ctx, { params }) {
    return { status: 200, body: operationShape(await imports.invalidateOperation(ctx.db, ctx.account.name, params.operation_id, 'source')) };
  },
  async upload_import_sources_sbom(ctx, { params, body }) {
    return { status: 200, body: await imports.storePart(ctx.db, ctx.account.name, params.operation_id, 'sbom', body, 'source') };
  },
  async get_import_sources_sbom(ctx, { params }) {
    const parts = await imports.listParts(ctx.db, ctx.account.name, params.operation_id, 'sbom', 'source');
    const latest = parts[parts.length - 1];
    if (!latest) throw new NotFoundError(`import operation '${params.operation_id}' has no SBOM uploaded`, { operation_id: params.operation_id });
    return { status: 200, body: latest };
  },
  async finalize_operation(ctx, { params, body }) {
    const source = await finalizeSourceImport(ctx.db, ctx.account.name, params.operation_id, body);
    return { status: 200, body: await sourceManifest(ctx.db, source) };
  },
};
