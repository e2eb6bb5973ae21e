/**
 * The public data a connected install syncs with `VIGIL_FEED_SOURCES=default`: OSV's export of every ecosystem Vigil
 * looks packages up in, the CISA KEV catalog and EPSS scores. `nvd` adds NVD's yearly CVE files for CVSS. Each is a
 * plain `name=url` source, so it is downloaded, detected and synced like any configured one (through src/outbound).
 */
import { MATCHED_ECOSYSTEMS, osvNameOf } from '../../ecosystems/registry.js';

export const OSV_EXPORTS = 'https://osv-vulnerabilities.storage.googleapis.com';
export const KEV_CATALOG_URL = 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json';
export const EPSS_SCORES_URL = 'https://epss.empiricalsecurity.com/epss_scores-current.csv.gz';
export const NVD_FEEDS = 'https://nvd.nist.gov/feeds/json/cve/2.0';
/** NVD's yearly files start with the CVEs of 2002 (which also holds the older ones). */
const NVD_FIRST_YEAR = 2002;

export interface DefaultFeedSource {
  name: string;
  location: string;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

/** OSV exports for the matched ecosystems, then KEV and EPSS. */
export function defaultFeedSources(): DefaultFeedSource[] {
  const osv = MATCHED_ECOSYSTEMS.map((ecosystem) => {
    const folder = osvNameOf(ecosystem);
    // A matched ecosystem without a known export is a programming error, caught by the tests.
    if (!folder) throw new Error(`no OSV export folder is known for ecosystem "${ecosystem}"`);
    return { name: slug(folder), location: `${OSV_EXPORTS}/${encodeURIComponent(folder)}/all.zip` };
  });
  return [...osv, { name: 'kev', location: KEV_CATALOG_URL }, { name: 'epss', location: EPSS_SCORES_URL }];
}

/** NVD's JSON 2.0 file of each CVE year up to `now`'s (a new year's file is picked up at the next start). */
export function nvdFeedSources(now: Date = new Date()): DefaultFeedSource[] {
  const out: DefaultFeedSource[] = [];
  for (let year = NVD_FIRST_YEAR; year <= now.getUTCFullYear(); year++)
    out.push({ name: `nvd-${year}`, location: `${NVD_FEEDS}/nvdcve-2.0-${year}.json.gz` });
  return out;
}
