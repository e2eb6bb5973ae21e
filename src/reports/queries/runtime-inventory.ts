/**
 * runtimeInventoryImagesByVulnerability: vulnerabilities of the images seen running, one result per
 * (account, vulnerability) — keyset on both — with the contexts (cluster/namespace or ECS cluster) where the
 * affected images run and their affected packages.
 */
import type { Db } from '../../db/index.js';
import type { PageTokens } from '../paging.js';
import { scopeKey } from '../scope.js';
import { vulnerabilityInfo, whereFinding, worstSeverity, type ArtifactCriteria, type VulnerabilityCriteria } from './criteria.js';
import type { ReportRequest } from './by-vulnerability.js';

export interface RuntimeInventoryCriteria {
  artifact?: ArtifactCriteria | null;
  image?: { digest?: string | null; context?: string | null; inventoryType?: string | null } | null;
  vulnerability?: VulnerabilityCriteria | null;
}

interface Row {
  account_name: string;
  vuln_id: string;
  image_digest: string;
  severity: string;
  package_name: string;
  package_version: string;
  package_type: string;
  package_path: string | null;
  fixed_in: string | null;
  context: string;
  inventory_type: string;
  image_tag: string;
  last_seen: string;
}

export interface RuntimeImage {
  context: string;
  inventoryType: string;
  imageTag: string;
  digest: string;
  lastSeen: string;
  artifacts: { artifactName: string; artifactVersion: string; artifactType: string; artifactLocation: string | null; severity: string; fixedIn: string | null }[];
}

function joined(db: Db, req: ReportRequest<RuntimeInventoryCriteria>) {
  const c = req.criteria;
  const q = db('report_findings as f').join('report_inventory as i', (j) => j.on('i.account_name', 'f.account_name').andOn('i.image_digest', 'f.image_digest'));
  whereFinding(q, req.scope, { vulnerability: c.vulnerability, artifact: c.artifact, image: c.image?.digest ? { digest: c.image.digest } : null });
  if (c.image?.context) q.where('i.context', c.image.context);
  if (c.image?.inventoryType) q.where('i.inventory_type', c.image.inventoryType);
  return q;
}

export async function runtimeInventoryImagesByVulnerability(db: Db, tokens: PageTokens, req: ReportRequest<RuntimeInventoryCriteria>) {
  const query = { kind: 'runtimeInventoryImagesByVulnerability', criteria: req.criteria, scope: scopeKey(req.scope) };
  const after = tokens.decode(query, req.nextToken);
  const keysQuery = joined(db, req).distinct('f.account_name', 'f.vuln_id').orderBy(['f.account_name', 'f.vuln_id']).limit(req.limit + 1);
  if (after) keysQuery.whereRaw('(f.account_name, f.vuln_id) > (?, ?)', after.map(String));
  const keys = (await keysQuery) as { account_name: string; vuln_id: string }[];
  const shown = keys.slice(0, req.limit);
  const rows: Row[] = [];
  for (const [account, ids] of groupIds(shown))
    for (let i = 0; i < ids.length; i += 500)
      rows.push(
        ...((await joined(db, req)
          .where('f.account_name', account)
          .whereIn('f.vuln_id', ids.slice(i, i + 500))
          .orderBy(['f.vuln_id', 'i.context', 'i.image_tag', 'f.image_digest', 'f.package_name'])
          .select(
            'f.account_name',
            'f.vuln_id',
            'f.image_digest',
            'f.severity',
            'f.package_name',
            'f.package_version',
            'f.package_type',
            'f.package_path',
            'f.fixed_in',
            'i.context',
            'i.inventory_type',
            'i.image_tag',
            'i.last_seen',
          )) as Row[]),
      );
  const info = await vulnerabilityInfo(db, [...new Set(shown.map((k) => k.vuln_id))]);
  const grouped = new Map<string, Row[]>();
  for (const r of rows) {
    const key = `${r.account_name}\u0000${r.vuln_id}`;
    grouped.set(key, [...(grouped.get(key) ?? []), r]);
  }
  return tokens.page(
    query,
    keys,
    req.limit,
    (k) => [k.account_name, k.vuln_id],
    (page) =>
      page.map((k) => {
        const found = grouped.get(`${k.account_name}\u0000${k.vuln_id}`) ?? [];
        const { cve, links } = info.get(k.vuln_id)!;
        return {
          vulnerabilityId: k.vuln_id,
          cve,
          links,
          severity: worstSeverity(found.map((r) => r.severity)),
          account: k.account_name,
          imagesCount: new Set(found.map((r) => r.image_digest)).size,
          runtimeImages: runtimeImages(found),
        };
      }),
  );
}

function groupIds(keys: { account_name: string; vuln_id: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const k of keys) out.set(k.account_name, [...(out.get(k.account_name) ?? []), k.vuln_id]);
  return out;
}

/** One entry per (context, image) with the image's affected packages. */
function runtimeImages(rows: Row[]): RuntimeImage[] {
  const out = new Map<string, RuntimeImage>();
  for (const r of rows) {
    const key = `${r.inventory_type}\u0000${r.context}\u0000${r.image_tag}\u0000${r.image_digest}`;
    let image = out.get(key);
    if (!image)
      out.set(key, (image = { context: r.context, inventoryType: r.inventory_type, imageTag: r.image_tag, digest: r.image_digest, lastSeen: r.last_seen, artifacts: [] }));
    if (!image.artifacts.some((a) => a.artifactName === r.package_name && a.artifactVersion === r.package_version && a.artifactType === r.package_type && a.artifactLocation === r.package_path))
      image.artifacts.push({
        artifactName: r.package_name,
        artifactVersion: r.package_version,
        artifactType: r.package_type,
        artifactLocation: r.package_path,
        severity: r.severity,
        fixedIn: r.fixed_in,
      });
  }
  return [...out.values()];
}
