/** Handlers of the Images tag that read analysis results: content by type, files, summaries, metadata, artifacts. */
import { CONTENT_TYPES } from '../ecosystems/registry.js';
import type { FileRecord } from '../images/model.js';
import { toCycloneDx, toNativeSbom, toSpdx } from '../images/sbom/index.js';
import { sbomInputOf } from '../images/sbom-export.js';
import { imageAncestors } from '../images/ancestry.js';
import { licenseReview } from '../images/license-review.js';
import { malwareScanResults } from '../images/malware.js';
import type { ContentSearchResult, RetrievedFile } from '../images/scanners/index.js';
import * as store from '../images/store.js';
import { countFiles, fileListChunks, readFileRange } from '../images/file-list.js';
import { streamedJsonArray } from '../server/json-stream.js';
import type { RequestContext } from '../server/context.js';
import type { HandlerGroup } from '../server/handler-types.js';

type ContentOps =
  | 'list_image_content'
  | 'get_image_content_summary'
  | 'get_image_content_by_type_files'
  | 'get_image_content_by_type_java_package'
  | 'get_image_content_by_type'
  | 'get_image_content_by_type_license'
  | 'get_image_content_by_type_malware'
  | 'list_image_metadata'
  | 'get_image_metadata_by_type'
  | 'get_image_sbom_native_json'
  | 'get_image_sbom_cyclonedx_json'
  | 'get_image_sbom_spdx_json'
  | 'get_image_ancestors'
  | 'list_retrieved_files'
  | 'list_file_content_search_results'
  | 'list_secret_search_results';

const METADATA_TYPES = ['manifest', 'docker_history', 'dockerfile'] as const;

const analyzedImage = (ctx: RequestContext, digest: string) => store.getAnalyzedImage(ctx.db, ctx.account.name, digest);

export function packageContent(p: store.PackageRow) {
  return {
    package: p.name,
    version: p.version,
    ...(p.size !== null ? { size: String(p.size) } : {}),
    type: p.type,
    ...(p.origin ? { origin: p.origin } : {}),
    licenses: p.licenses,
    location: p.locations[0] ?? '',
    cpes: p.cpes,
    purl: p.purl,
    metadata_type: `${p.type}_metadata`,
    // A language package the OS package manager installed names its owner (images/ownership.ts); metadata is an
    // open object in the spec, so this is an optional addition upstream clients ignore.
    metadata: p.owner ? { ...p.metadata, ownedBy: p.owner } : p.metadata,
  };
}

function fileContent(f: FileRecord) {
  return {
    filename: f.path,
    type: f.type,
    mode: f.mode.toString(8).padStart(5, '0'),
    uid: f.uid,
    gid: f.gid,
    size: f.size,
    ...(f.sha256 ? { sha256: f.sha256 } : {}),
    ...(f.linkTarget ? { linkdest: f.linkTarget } : {}),
  };
}

/** Files per page when the caller gives `page` without `limit`. */
const DEFAULT_FILES_PAGE = 1000;

async function* fileContentChunks(ctx: RequestContext, digest: string) {
  for await (const files of fileListChunks(ctx.db, ctx.account.name, digest)) yield files.map(fileContent);
}

export const imageContentHandlers: HandlerGroup<ContentOps> = {
  async list_image_content(ctx, { params }) {
    await analyzedImage(ctx, params.image_digest);
    return { status: 200, body: [...CONTENT_TYPES.map((c) => c.type), 'files'] };
  },
  async get_image_content_summary(ctx, { params }) {
    await analyzedImage(ctx, params.image_digest);
    const counts = await store.countPackagesByType(ctx.db, ctx.account.name, params.image_digest);
    const items = CONTENT_TYPES.map((c) => ({
      content_type: c.type,
      display_name: c.display,
      count: c.packageTypes.reduce((n, t) => n + (counts.get(t) ?? 0), 0),
    }));
    items.push({ content_type: 'files', display_name: 'Files', count: await countFiles(ctx.db, ctx.account.name, params.image_digest) });
    return { status: 200, body: { items } };
  },
  async get_image_content_by_type_files(ctx, { params, query }) {
    await analyzedImage(ctx, params.image_digest);
    const head = { image_digest: params.image_digest, content_type: 'files' };
    // Upstream's answer, all files at once: streamed, never built whole in memory.
    if (query.page === undefined && query.limit === undefined) return { status: 200, body: streamedJsonArray(head, 'content', fileContentChunks(ctx, params.image_digest)) };
    const page = Number(query.page ?? '1');
    const limit = query.limit ?? DEFAULT_FILES_PAGE;
    const [total, files] = await Promise.all([
      countFiles(ctx.db, ctx.account.name, params.image_digest),
      readFileRange(ctx.db, ctx.account.name, params.image_digest, (page - 1) * limit, limit),
    ]);
    const content = files.map(fileContent);
    const nextPage = page * limit < total ? String(page + 1) : '';
    return { status: 200, body: { ...head, content, page: String(page), next_page: nextPage, returned_count: content.length, total_count: total } };
  },
  async get_image_content_by_type_java_package(ctx, { params }) {
    await analyzedImage(ctx, params.image_digest);
    const packages = await store.packagesOf(ctx.db, ctx.account.name, params.image_digest, ['java']);
    const content = packages.map((p) => {
      const manifest = (p.metadata.manifest ?? {}) as Record<string, string>;
      const pom = (p.metadata.pomProperties ?? {}) as Record<string, string>;
      return {
        package: p.name,
        version: p.version,
        ...(manifest['Implementation-Version'] ? { 'implementation-version': manifest['Implementation-Version'] } : {}),
        ...(manifest['Specification-Version'] ? { 'specification-version': manifest['Specification-Version'] } : {}),
        ...(pom.version ? { 'maven-version': pom.version } : {}),
        location: p.locations[0] ?? '',
        type: 'java',
        ...(p.origin ? { origin: p.origin } : {}),
        licenses: p.licenses,
        cpes: p.cpes,
        purl: p.purl,
        ...(p.owner ? { owned_by: p.owner } : {}),
      };
    });
    return { status: 200, body: { image_digest: params.image_digest, content_type: 'java', content } };
  },
  async get_image_content_by_type(ctx, { params }) {
    await analyzedImage(ctx, params.image_digest);
    // The spec's enum admits only the listed content types.
    const packageTypes = CONTENT_TYPES.find((c) => c.type === params.content_type)?.packageTypes ?? [];
    const packages = await store.packagesOf(ctx.db, ctx.account.name, params.image_digest, packageTypes);
    return { status: 200, body: { image_digest: params.image_digest, content_type: params.content_type, content: packages.map(packageContent) } };
  },
  async get_image_content_by_type_license(ctx, { params }) {
    const image = await analyzedImage(ctx, params.image_digest);
    return { status: 200, body: { items: await licenseReview(ctx.db, ctx.account.name, image.image_digest) } };
  },
  async get_image_content_by_type_malware(ctx, { params }) {
    const image = await analyzedImage(ctx, params.image_digest);
    return { status: 200, body: { image_digest: image.image_digest, content_type: 'malware' as const, content: malwareScanResults() } };
  },
  async list_image_metadata(ctx, { params }) {
    await analyzedImage(ctx, params.image_digest);
    return { status: 200, body: [...METADATA_TYPES] };
  },
  async get_image_metadata_by_type(ctx, { params }) {
    const image = await analyzedImage(ctx, params.image_digest);
    const kind = { manifest: 'manifest', docker_history: 'history', dockerfile: 'dockerfile' } as const;
    const metadata = await store.readDocument(ctx.db, ctx.account.name, image.image_digest, kind[params.metadata_type]);
    return { status: 200, body: { image_digest: image.image_digest, metadata_type: params.metadata_type, metadata: metadata ?? null } };
  },
  async get_image_ancestors(ctx, { params }) {
    const image = await analyzedImage(ctx, params.image_digest);
    return { status: 200, body: await imageAncestors(ctx.db, ctx.account.name, image.image_digest) };
  },
  async list_retrieved_files(ctx, { params }) {
    const image = await analyzedImage(ctx, params.image_digest);
    return { status: 200, body: (await store.readDocument<RetrievedFile[]>(ctx.db, ctx.account.name, image.image_digest, 'retrieved_files')) ?? [] };
  },
  async list_file_content_search_results(ctx, { params }) {
    const image = await analyzedImage(ctx, params.image_digest);
    return { status: 200, body: (await store.readDocument<ContentSearchResult[]>(ctx.db, ctx.account.name, image.image_digest, 'content_search')) ?? [] };
  },
  async list_secret_search_results(ctx, { params }) {
    const image = await analyzedImage(ctx, params.image_digest);
    return { status: 200, body: (await store.readDocument<ContentSearchResult[]>(ctx.db, ctx.account.name, image.image_digest, 'secret_search')) ?? [] };
  },
  async get_image_sbom_native_json(ctx, { params }) {
    const image = await analyzedImage(ctx, params.image_digest);
    const input = await sbomInputOf(ctx.db, image, ctx.services.version, true);
    return { status: 200, body: toNativeSbom(input) as unknown as Record<string, unknown> };
  },
  async get_image_sbom_cyclonedx_json(ctx, { params, query }) {
    const image = await analyzedImage(ctx, params.image_digest);
    const input = await sbomInputOf(ctx.db, image, ctx.services.version, false);
    return { status: 200, body: toCycloneDx(input, { specVersion: query.spec_version ?? '1.6' }) as unknown as Record<string, unknown> };
  },
  async get_image_sbom_spdx_json(ctx, { params }) {
    const image = await analyzedImage(ctx, params.image_digest);
    const input = await sbomInputOf(ctx.db, image, ctx.services.version, false);
    return { status: 200, body: toSpdx(input) as unknown as Record<string, unknown> };
  },
};
