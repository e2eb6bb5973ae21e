/**
 * The license review of an image: every package with the licenses it declares, each sorted into what it is — a
 * listed SPDX identifier, an SPDX expression or a free-form name — by the same rules the SBOM writers use.
 */
import type { Db } from '../db/index.js';
import { classifyLicense } from './sbom/licenses.js';
import { packagesOf } from './store.js';

export interface ReviewedLicense {
  license_id?: string;
  license_name?: string;
  license_url?: string;
  /** Vigil reads licenses from package metadata only. */
  source: 'declared';
}

export interface LicenseReviewItem {
  package: { name: string; version: string; type: string; purl?: string };
  licenses: ReviewedLicense[];
}

export function reviewedLicense(declared: string): ReviewedLicense | undefined {
  const choice = classifyLicense(declared);
  if (!choice) return undefined;
  if (choice.kind === 'id') return { license_id: choice.id, license_url: `https://spdx.org/licenses/${choice.id}.html`, source: 'declared' };
  return { license_name: choice.kind === 'expression' ? choice.expression : choice.name, source: 'declared' };
}

/** One item per package of the image (in the content routes' order); the caller checks the image is analyzed. */
export async function licenseReview(db: Db, accountName: string, digest: string): Promise<LicenseReviewItem[]> {
  const packages = await packagesOf(db, accountName, digest);
  return packages.map((p) => {
    const seen = new Set<string>();
    const licenses: ReviewedLicense[] = [];
    for (const declared of p.licenses) {
      const license = reviewedLicense(declared);
      const key = license?.license_id ?? license?.license_name;
      if (!license || key === undefined || seen.has(key)) continue;
      seen.add(key);
      licenses.push(license);
    }
    return { package: { name: p.name, version: p.version, type: p.type, ...(p.purl ? { purl: p.purl } : {}) }, licenses };
  });
}
