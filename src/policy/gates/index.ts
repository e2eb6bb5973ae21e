/** The gate registry: every gate Vigil knows, active ones first. */
import type { GateDefinition } from '../gate-types.js';
import { alwaysGate } from './always.js';
import { ancestryGate } from './ancestry.js';
import { distroGate } from './distro.js';
import { dockerfileGate } from './dockerfile.js';
import { EOL_GATES } from './eol.js';
import { filesGate } from './files.js';
import { licensesGate } from './licenses.js';
import { metadataGate } from './metadata.js';
import { packagesGate } from './packages.js';
import { passwdFileGate } from './passwd_file.js';
import { retrievedFilesGate } from './retrieved_files.js';
import { secretScansGate } from './secret_scans.js';
import { tagDriftGate } from './tag_drift.js';
import { vulnerabilitiesGate } from './vulnerabilities.js';

export { EOL_GATES } from './eol.js';

/** Gates that policies may use, in alphabetical order by name. */
export const ACTIVE_GATES: readonly GateDefinition[] = [
  alwaysGate,
  ancestryGate,
  distroGate,
  dockerfileGate,
  filesGate,
  licensesGate,
  metadataGate,
  packagesGate,
  passwdFileGate,
  retrievedFilesGate,
  secretScansGate,
  tagDriftGate,
  vulnerabilitiesGate,
];

/** Active gates followed by the end-of-life ones. */
export const ALL_GATES: readonly GateDefinition[] = [...ACTIVE_GATES, ...EOL_GATES];

const BY_NAME = new Map(ALL_GATES.map((g) => [g.name, g]));

/** The gate with this name, matched case-insensitively, or undefined. */
export function findGate(name: string): GateDefinition | undefined {
  return BY_NAME.get(name.toLowerCase());
}
