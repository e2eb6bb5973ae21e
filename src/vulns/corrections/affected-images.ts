/**
 * The images a correction's match can apply to: what adding, changing or removing the correction re-matches.
 */
import type { Db } from '../../db/index.js';
import { OS_PACKAGE_TYPES } from '../../ecosystems/model.js';
import { imagePackageOf, PACKAGE_COLUMNS, type PackageRowFields } from '../findings.js';
import { correctionApplies, matchedNames, type CorrectionMatch } from './model.js';

export interface ImageRef {
  account_name: string;
  image_digest: string;
}

const PAGE = 5000;

/**
 * Analyzed images (of any account) holding a package one of the matches applies to. Read by package type, and by
 * name when a match names one, a page at a time (by row id); the whole match is then checked as the correction
 * step checks it.
 */
export async function imagesMatchedBy(db: Db, matches: readonly CorrectionMatch[]): Promise<ImageRef[]> {
  const found = new Map<string, ImageRef>();
  for (const match of matches) {
    const types = match.type === 'os' ? [...OS_PACKAGE_TYPES] : [match.type];
    const names = matchedNames(match);
    for (let after = 0; ; ) {
      const q = db('image_packages as p')
        .join('images as i', function joinImage() {
          this.on('i.account_name', '=', 'p.account_name').andOn('i.image_digest', '=', 'p.image_digest');
        })
        .where('i.analysis_status', 'analyzed')
        .whereIn('p.type', types)
        .andWhere('p.id', '>', after)
        .orderBy('p.id')
        .limit(PAGE)
        .select('p.id', 'p.account_name', 'p.image_digest', ...PACKAGE_COLUMNS.map((c) => `p.${c}`));
      if (names) q.whereIn('p.name', names);
      const rows: (PackageRowFields & ImageRef & { id: number })[] = await q;
      for (const r of rows)
        if (correctionApplies(match, imagePackageOf(r))) found.set(`${r.account_name}\u0000${r.image_digest}`, { account_name: r.account_name, image_digest: r.image_digest });
      if (rows.length < PAGE) break;
      after = Number(rows[rows.length - 1]!.id);
    }
  }
  return [...found.values()].sort((a, b) => a.account_name.localeCompare(b.account_name) || a.image_digest.localeCompare(b.image_digest));
}
