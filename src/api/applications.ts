/** Handlers of the Applications tag: applications, their versions, associated artifacts, SBOM and vulnerabilities. */
import type { Db } from '../db/index.js';
import { toNativeSbom } from '../images/sbom/index.js';
import { associateArtifact, versionArtifacts } from '../applications/artifacts.js';
import { versionSbomInput, versionVulnerabilities } from '../applications/report.js';
import * as store from '../applications/store.js';
import type { ImageRecord } from '../images/store.js';
import type { HandlerGroup } from '../server/handler-types.js';
import { sourceShape } from './sources.js';

type ApplicationOps =
  | 'get_applications'
  | 'add_application'
  | 'get_application'
  | 'update_application'
  | 'delete_application'
  | 'get_application_versions'
  | 'add_application_version'
  | 'get_application_version'
  | 'update_application_version'
  | 'delete_application_version'
  | 'list_artifacts'
  | 'add_artifact_to_application_version'
  | 'remove_artifact_from_application_version'
  | 'get_application_version_sbom'
  | 'get_application_version_vulnerabilities';

const versionShape = (v: store.ApplicationVersionRecord) => ({
  application_version_id: v.application_version_id,
  application_id: v.application_id,
  version_name: v.version_name,
  created_at: v.created_at,
  last_updated: v.last_updated,
});

/** Upstream's Application, its versions included. */
async function applicationsShape(db: Db, applications: store.ApplicationRecord[]) {
  const versions = await store.versionsOf(db, applications.map((a) => a.application_id));
  return applications.map((a) => ({
    application_id: a.application_id,
    name: a.name,
    description: a.description,
    application_versions: versions.filter((v) => v.application_id === a.application_id).map(versionShape),
    created_at: a.created_at,
    last_updated: a.last_updated,
  }));
}

async function applicationShape(db: Db, application: store.ApplicationRecord) {
  return (await applicationsShape(db, [application]))[0]!;
}

const imageArtifactShape = (i: ImageRecord) => ({
  account_name: i.account_name,
  image_digest: i.image_digest,
  distro: i.distro,
  distro_version: i.distro_version,
  analysis_status: i.analysis_status,
  image_status: i.image_status,
  analyzed_at: i.analyzed_at,
  created_at: i.created_at,
  last_updated: i.last_updated,
});

const associationMetadata = (a: store.ArtifactAssociationRecord) => ({ association_id: a.association_id, created_at: a.created_at });

/** The application and version the path names, both in the caller's account. */
async function versionAt(db: Db, accountName: string, params: { application_id: string; application_version_id: string }) {
  const application = await store.getApplication(db, accountName, params.application_id);
  return { application, version: await store.getVersion(db, application, params.application_version_id) };
}

export const applicationHandlers: HandlerGroup<ApplicationOps> = {
  async get_applications(ctx, { query }) {
    const limit = query.limit ?? store.MAX_APPLICATIONS_PAGE;
    const applications = await store.listApplications(ctx.db, ctx.account.name, { limit, offset: ((query.page ?? 1) - 1) * limit });
    return { status: 200, body: await applicationsShape(ctx.db, applications) };
  },
  async add_application(ctx, { body }) {
    return { status: 200, body: await applicationShape(ctx.db, await store.insertApplication(ctx.db, ctx.account.name, body)) };
  },
  async get_application(ctx, { params }) {
    return { status: 200, body: await applicationShape(ctx.db, await store.getApplication(ctx.db, ctx.account.name, params.application_id)) };
  },
  async update_application(ctx, { params, body }) {
    const current = await store.getApplication(ctx.db, ctx.account.name, params.application_id);
    return { status: 200, body: await applicationShape(ctx.db, await store.updateApplication(ctx.db, current, body)) };
  },
  async delete_application(ctx, { params }) {
    await store.deleteApplication(ctx.db, ctx.account.name, params.application_id);
    return { status: 204 };
  },
  async get_application_versions(ctx, { params }) {
    const application = await store.getApplication(ctx.db, ctx.account.name, params.application_id);
    return { status: 200, body: (await store.versionsOf(ctx.db, [application.application_id])).map(versionShape) };
  },
  async add_application_version(ctx, { params, body }) {
    const application = await store.getApplication(ctx.db, ctx.account.name, params.application_id);
    return { status: 200, body: versionShape(await store.insertVersion(ctx.db, application, body.version_name)) };
  },
  async get_application_version(ctx, { params }) {
    return { status: 200, body: versionShape((await versionAt(ctx.db, ctx.account.name, params)).version) };
  },
  async update_application_version(ctx, { params, body }) {
    const { version } = await versionAt(ctx.db, ctx.account.name, params);
    return { status: 200, body: versionShape(await store.renameVersion(ctx.db, version, body.version_name)) };
  },
  async delete_application_version(ctx, { params }) {
    await store.deleteVersion(ctx.db, (await versionAt(ctx.db, ctx.account.name, params)).version);
    return { status: 204 };
  },
  async list_artifacts(ctx, { params }) {
    const { version } = await versionAt(ctx.db, ctx.account.name, params);
    const artifacts = await versionArtifacts(ctx.db, ctx.account.name, version);
    return {
      status: 200,
      body: {
        associated_image_artifacts: artifacts.images.map((a) => ({ artifact_association_metadata: associationMetadata(a.association), image: imageArtifactShape(a.image) })),
        associated_source_artifacts: artifacts.sources.map((a) => ({ artifact_association_metadata: associationMetadata(a.association), source: sourceShape(a.source) })),
      },
    };
  },
  async add_artifact_to_application_version(ctx, { params, body }) {
    const { version } = await versionAt(ctx.db, ctx.account.name, params);
    const association = await associateArtifact(ctx.db, ctx.account.name, version, body);
    const key = association.artifact_type === 'image' ? 'image_digest' : 'source_id';
    return {
      status: 200,
      body: { artifact_type: association.artifact_type, artifact_keys: { [key]: association.artifact_id }, artifact_association_metadata: associationMetadata(association) },
    };
  },
  async remove_artifact_from_application_version(ctx, { params }) {
    const { version } = await versionAt(ctx.db, ctx.account.name, params);
    await store.deleteAssociation(ctx.db, version, params.association_id);
    return { status: 204 };
  },
  async get_application_version_sbom(ctx, { params, query }) {
    const { application, version } = await versionAt(ctx.db, ctx.account.name, params);
    const artifacts = await versionArtifacts(ctx.db, ctx.account.name, version);
    const types = new Set<store.ArtifactType>(query.artifact_types?.length ? query.artifact_types : ['image', 'source']);
    const input = await versionSbomInput(ctx.db, application.name, version, artifacts, types, ctx.services.version);
    return { status: 200, body: toNativeSbom(input) as unknown as Record<string, unknown> };
  },
  async get_application_version_vulnerabilities(ctx, { params }) {
    const { application, version } = await versionAt(ctx.db, ctx.account.name, params);
    const artifacts = await versionArtifacts(ctx.db, ctx.account.name, version);
    return {
      status: 200,
      body: {
        application: {
          id: application.application_id,
          name: application.name,
          version_id: version.application_version_id,
          version_name: version.version_name,
          artifacts: { images: artifacts.images.map((a) => imageArtifactShape(a.image)), sources: artifacts.sources.map((a) => sourceShape(a.source)) },
        },
        vulnerabilities: await versionVulnerabilities(ctx.db, artifacts),
      },
    };
  },
};
