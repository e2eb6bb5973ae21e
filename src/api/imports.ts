/** Handlers of the Imports tag (SBOM import). */
import * as imports from '../images/imports.js';
import type { HandlerGroup } from '../server/handler-types.js';

type ImportOps =
  | 'list_operations'
  | 'create_operation'
  | 'get_operation'
  | 'invalidate_operation'
  | 'import_image_sbom'
  | 'import_image_packages'
  | 'list_import_packages'
  | 'import_image_manifest'
  | 'list_import_image_manifests'
  | 'import_image_config'
  | 'list_import_image_configs'
  | 'import_image_parent_manifest'
  | 'list_import_parent_manifests'
  | 'import_image_dockerfile'
  | 'list_import_dockerfiles'
  | 'import_secret_searches'
  | 'list_import_secret_searches'
  | 'import_content_searches'
  | 'list_import_content_searches'
  | 'import_file_contents'
  | 'list_import_file_contents';

const operationShape = (o: imports.ImportOperationRecord) => ({ uuid: o.uuid, status: o.status, created_at: o.created_at, expires_at: o.expires_at });

function partHandlers<Post extends ImportOps, List extends ImportOps>(post: Post, list: List, kind: imports.ImportPartKind) {
  return {
    [post]: async (ctx: any, { params, body }: any) => ({ status: 200, body: await imports.storePart(ctx.db, ctx.account.name, params.operation_id, kind, body) }),
    [list]: async (ctx: any, { params }: any) => ({ status: 200, body: await imports.listPartDigests(ctx.db, ctx.account.name, params.operation_id, kind) }),
  } as Pick<HandlerGroup<ImportOps>, Post | List>;
}

export const importHandlers: HandlerGroup<ImportOps> = {
  async list_operations(ctx) {
    return { status: 200, body: (await imports.listOperations(ctx.db, ctx.account.name)).map(operationShape) };
  },
  async create_operation(ctx) {
    return { status: 200, body: operationShape(await imports.createOperation(ctx.db, ctx.account.name)) };
  },
  async get_operation(ctx, { params }) {
    return { status: 200, body: operationShape(await imports.getOperation(ctx.db, ctx.account.name, params.operation_id)) };
  },
  async invalidate_operation(ctx, { params }) {
    return { status: 200, body: operationShape(await imports.invalidateOperation(ctx.db, ctx.account.name, params.operation_id)) };
  },
  async import_image_sbom(ctx, { params, body }) {
    return { status: 200, body: await imports.storePart(ctx.db, ctx.account.name, params.operation_id, 'sbom', body) };
  },
  ...partHandlers('import_image_packages', 'list_import_packages', 'packages'),
  ...partHandlers('import_image_manifest', 'list_import_image_manifests', 'manifest'),
  ...partHandlers('import_image_config', 'list_import_image_configs', 'image_config'),
  ...partHandlers('import_image_parent_manifest', 'list_import_parent_manifests', 'parent_manifest'),
  ...partHandlers('import_image_dockerfile', 'list_import_dockerfiles', 'dockerfile'),
  ...partHandlers('import_secret_searches', 'list_import_secret_searches', 'secret_searches'),
  ...partHandlers('import_content_searches', 'list_import_content_searches', 'content_searches'),
  ...partHandlers('import_file_contents', 'list_import_file_contents', 'file_contents'),
};
