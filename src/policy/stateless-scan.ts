/**
 * The one-time scan (POST /v2/scan): an SBOM, with the secret and content searches and retrieved files a client
 * scanner produced, is matched against the feeds and evaluated with the account's active (or a named) policy for a
 * tag, and both results are answered. Nothing is stored: no image, no findings, no evaluation, no event. The work
 * is bounded by the request body limit: one read of the document, one batched match, one policy evaluation.
 */
import type { Db } from '../db/index.js';
import { InvalidError } from '../errors.js';
import { readSbomImageMetadata, readSbomPackages } from '../images/sbom/index.js';
import { importedRetrievedFiles, importedSearchResults, type ImportedContentSearch, type ImportedFileContent } from '../images/scanners/imported.js';
import { fullTag, parseImageReference } from '../images/sources/references.js';
import { sbomId, scanSbomPackages } from '../vulns/sbom-scan.js';
import type { PolicyDocument } from './document.js';
import { evaluatePolicy } from './evaluate-policy.js';
import { sbomEvaluationContext } from './sbom-context.js';
import { activePolicy, getPolicy } from './store.js';

export interface StatelessScanRequest {
  sbom: unknown;
  secret_scan?: { findings: ImportedContentSearch[] };
  content_search?: { findings: ImportedContentSearch[] };
  retrieved_files?: { findings: ImportedFileContent[] };
}

export interface StatelessScanOptions {
  /** The tag the evaluation is for (mappings select rule sets by it). */
  tag: string;
  policyId?: string;
  now?: Date;
}

export async function statelessScan(db: Db, accountName: string, request: StatelessScanRequest, o: StatelessScanOptions) {
  const ref = parseImageReference(o.tag);
  if (ref.digest)
    throw new InvalidError(`tag '${o.tag}' names a digest; give the tag the evaluation is for`, { errors: [{ location: 'query.tag', message: 'names a digest, not a tag' }] });
  const read = readSbomPackages(request.sbom);
  const image = readSbomImageMetadata(request.sbom);
  const record = o.policyId ? await getPolicy(db, accountName, o.policyId, true) : await activePolicy(db, accountName);
  const policy = record.policy as PolicyDocument;
  const id = sbomId(request.sbom);
  const digest = image.manifestDigest ?? id;
  const evaluatedTag = fullTag(ref);

  const vulnerabilities = await scanSbomPackages(db, read, { includeDescription: false, vendorOnly: false });
  const ctx = sbomEvaluationContext(db, {
    accountName,
    digest,
    read,
    image,
    tag: { registry: ref.registry, repo: ref.repository, tag: ref.tag!, fullTag: evaluatedTag },
    vulnerabilities,
    ...(request.secret_scan ? { secretSearch: importedSearchResults(request.secret_scan.findings) } : {}),
    ...(request.content_search ? { contentSearch: importedSearchResults(request.content_search.findings) } : {}),
    ...(request.retrieved_files ? { retrievedFiles: importedRetrievedFiles(request.retrieved_files.findings) } : {}),
    now: o.now ?? new Date(),
  });
  const evaluation = await evaluatePolicy(policy, ctx, { detail: true });
  return {
    vuln_scan: {
      sbom_id: id,
      // Vigil has no extended-support (EUS) feed data.
      extended_support: false,
      distro: read.distro ? `${read.distro.name}:${read.distro.version}` : null,
      // As the vulnerability scan answers by default (vendor_only): without what the distribution will not fix.
      vulnerabilities: vulnerabilities.filter((v) => !v.will_not_fix),
    },
    policy_scan: { policy_id: policy.id, image_digest: digest, evaluated_tag: evaluatedTag, evaluations: [evaluation] },
  };
}
