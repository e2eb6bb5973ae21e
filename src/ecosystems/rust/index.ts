/** Rust crates: Cargo.lock files and cargo-auditable binaries; crates.io advisories. */
import { languageEcosystem, lowerCaseName } from '../ecosystem.js';
import { purl } from '../shared/identifiers.js';
import { semverComparator } from '../shared/semver.js';
import { rustBinaryCataloger, rustCargoLockCataloger } from './cataloger.js';

export const rustEcosystem = languageEcosystem({
  type: 'rust',
  names: { syft: 'rust-crate', purl: 'cargo', language: 'rust', foundBy: 'rust' },
  content: { type: 'rust', display: 'Rust Crates' },
  catalogers: [rustCargoLockCataloger, rustBinaryCataloger],
  comparator: semverComparator,
  osv: 'crates.io',
  normalizeName: lowerCaseName,
  purlFor: ({ name, version }) => purl('cargo', undefined, name, version),
});
