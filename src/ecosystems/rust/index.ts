/** Rust crates: Cargo.lock files and cargo-auditable binaries; crates.io advisories. */
import type { Ecosystem } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { feedEcosystem, languageLookup } from '../shared/lookup.js';
import { semverComparator } from '../shared/semver.js';
import { rustBinaryCataloger, rustCargoLockCataloger } from './cataloger.js';

const FEED = feedEcosystem('crates.io');
const normalizeName = (name: string) => name.toLowerCase();

export const rustEcosystem: Ecosystem = {
  type: 'rust',
  names: { syft: 'rust-crate', purl: 'cargo', language: 'rust', foundBy: 'rust' },
  content: { type: 'rust', display: 'Rust Crates' },
  catalogers: [rustCargoLockCataloger, rustBinaryCataloger],
  comparator: semverComparator,
  feeds: [FEED],
  lookup: languageLookup(FEED, normalizeName, semverComparator),
  normalizeName,
  purlFor: ({ name, version }) => purl('cargo', undefined, name, version),
};
