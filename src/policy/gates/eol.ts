/**
 * End-of-life gates from the first policy format. They are defined so that old policies can still be parsed and
 * reported on; strict validation rejects them, and at evaluation time they never fire.
 */
import type { GateDefinition } from '../gate-types.js';

function eolGate(name: string, description: string, triggers: string[], supersededBy?: string): GateDefinition {
  return {
    name,
    description,
    state: 'eol',
    ...(supersededBy === undefined ? {} : { supersededBy }),
    triggers: triggers.map((t) => ({
      name: t,
      description: `End-of-life trigger of the ${name} gate.`,
      params: [],
      state: 'eol' as const,
    })),
  };
}

export const EOL_GATES: GateDefinition[] = [
  eolGate(
    'anchoresec',
    'Legacy vulnerability checks; replaced by the vulnerabilities gate.',
    ['vulnlow', 'vulnmedium', 'vulnhigh', 'vulncritical', 'vulnunknown', 'feedoutofdate', 'unsupporteddistro'],
    'vulnerabilities',
  ),
  eolGate(
    'dockerfilecheck',
    'Legacy Dockerfile checks; replaced by the dockerfile gate.',
    [
      'directivecheck',
      'effectiveuser',
      'expose',
      'nofrom',
      'fromscratch',
      'notag',
      'sudo',
      'volumepresent',
      'nohealthcheck',
      'nodockerfile',
    ],
    'dockerfile',
  ),
  eolGate('filecheck', 'Legacy file checks; replaced by the files gate.', ['contentmatch', 'filenamematch', 'suidsgidcheck'], 'files'),
  eolGate(
    'fileparse_passwd',
    'Legacy /etc/passwd checks; replaced by the passwd_file gate.',
    ['filenotstored', 'usernamematch', 'useridmatch', 'groupidmatch', 'shellmatch', 'pentrymatch'],
    'passwd_file',
  ),
  eolGate(
    'gemcheck',
    'Legacy Ruby gem checks; replaced by the gems gate.',
    ['gemnotlatest', 'gemnotofficial', 'gembadversion', 'gempkgfullmatch', 'gempkgnamematch', 'gemnofeed'],
    'gems',
  ),
  eolGate('imagecheck', 'Legacy image checks against the base image; no replacement.', ['baseoutofdate']),
  eolGate('licblacklist', 'Legacy license checks; replaced by the licenses gate.', ['licfullmatch', 'licsubmatch'], 'licenses'),
  eolGate('metadatacheck', 'Legacy image metadata checks; replaced by the metadata gate.', ['attributecheck'], 'metadata'),
  eolGate(
    'npmcheck',
    'Legacy NPM package checks; replaced by the npms gate.',
    ['npmnotlatest', 'npmnotofficial', 'npmbadversion', 'npmpkgfullmatch', 'npmpkgnamematch', 'npmnofeed'],
    'npms',
  ),
  eolGate('pkgblacklist', 'Legacy forbidden-package checks; replaced by the packages gate.', ['pkgfullmatch', 'pkgnamematch'], 'packages'),
  eolGate('pkgcheck', 'Legacy package presence and integrity checks; replaced by the packages gate.', ['pkgnotpresent', 'verify'], 'packages'),
  eolGate('pkgdiff', 'Legacy package comparison with the base image; no replacement.', ['pkgversiondiff', 'pkgadd', 'pkgdel', 'pkgdiff']),
  eolGate('secretcheck', 'Legacy secret search checks; replaced by the secret_scans gate.', ['contentmatch', 'filenamematch'], 'secret_scans'),
  eolGate('suiddiff', 'Legacy setuid/setgid comparison with the base image; no replacement.', [
    'suiddiff',
    'suidfileadd',
    'suidfiledel',
    'suidmodediff',
  ]),
];
