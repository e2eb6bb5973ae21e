/** Handlers of the Relationships tag: relationships between artifacts (images, source revisions) and their SBOM diff. */
import type { PackageRow } from '../images/store.js';
import { addRelationship, getRelationship, listRelationships, removeRelationships, type Relationship } from '../relationships/relationships.js';
import { relationshipSbomDiff, type DiffPackage } from '../relationships/sbom-diff.js';
import type { HandlerGroup } from '../server/handler-types.js';

type RelationshipOps = 'list_artifact_relationships' | 'add_artifact_relationship' | 'delete_artifact_relationships' | 'get_artifact_relationship' | 'get_relationship_sbom_diff';

/** Upstream's ArtifactRelationship: fields without a value are left out. */
function relationshipShape(r: Relationship) {
  return {
    uuid: r.uuid,
    created_at: r.created_at,
    source: r.source,
    target: r.target,
    relationship_type: r.relationship_type,
    ...(r.comment !== null ? { comment: r.comment } : {}),
    ...(r.user_metadata !== null ? { user_metadata: r.user_metadata } : {}),
  };
}

/** Upstream's Package, with the package type and (for a changed package) its side's vulnerabilities. */
function packageShape({ package: p, vulnerabilities }: DiffPackage) {
  const shaped = (pkg: PackageRow) => ({
    name: pkg.name,
    version: pkg.version,
    type: pkg.type,
    ...(pkg.origin ? { origin: pkg.origin } : {}),
    ...(pkg.source_version ? { sourcepkg: pkg.source_version } : {}),
    location: pkg.locations[0] ?? '',
    ...(pkg.size !== null ? { size: pkg.size } : {}),
    licenses: pkg.licenses,
    cpes: pkg.cpes,
    purl: pkg.purl,
  });
  return { ...shaped(p), ...(vulnerabilities ? { vulnerabilities } : {}) };
}

export const relationshipHandlers: HandlerGroup<RelationshipOps> = {
  async list_artifact_relationships(ctx, { query }) {
    const relationships = await listRelationships(ctx.db, ctx.account.name, { artifactType: query.artifact_type, artifactId: query.artifact_id });
    return { status: 200, body: relationships.map(relationshipShape) };
  },
  async add_artifact_relationship(ctx, { body }) {
    return { status: 200, body: relationshipShape(await addRelationship(ctx.db, ctx.account.name, body)) };
  },
  async delete_artifact_relationships(ctx, { query }) {
    return { status: 200, body: { deleted: await removeRelationships(ctx.db, ctx.account.name, query.relationship_ids) } };
  },
  async get_artifact_relationship(ctx, { params }) {
    return { status: 200, body: relationshipShape(await getRelationship(ctx.db, ctx.account.name, params.relationship_id)) };
  },
  async get_relationship_sbom_diff(ctx, { params }) {
    const relationship = await getRelationship(ctx.db, ctx.account.name, params.relationship_id);
    const diff = await relationshipSbomDiff(ctx.db, ctx.account.name, relationship);
    return {
      status: 200,
      body: {
        source_only: diff.source_only.map(packageShape),
        target_only: diff.target_only.map(packageShape),
        source_modified: diff.source_modified.map((m) => ({ source: packageShape(m.source), target: packageShape(m.target) })),
        both_unmodified: diff.both_unmodified.map(packageShape),
      },
    };
  },
};
