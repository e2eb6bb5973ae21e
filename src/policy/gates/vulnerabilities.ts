import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { booleanString, commaDelimitedStrings, enumString, floatString, integerString, regexString } from '../params.js';
import { orderComparison } from './common.js';

/** A `<score>_comparison` operator plus its `<score>` value. */
function scoreParams(name: string, what: string): ParamDefinition[] {
  return [
    {
      name: `${name}_comparison`,
      description: `Operator used to compare the ${what} with ${name}.`,
      required: false,
      example: '>',
      validator: orderComparison,
    },
    {
      name,
      description: `The ${what} threshold the vulnerability is compared with.`,
      required: false,
      validator: floatString,
    },
  ];
}

const denyParams: ParamDefinition[] = [
  {
    name: 'vulnerability_ids',
    description: 'Vulnerability identifiers; the trigger fires if any of them is found in the image.',
    required: true,
    example: 'CVE-2019-1234',
    validator: commaDelimitedStrings,
  },
  {
    name: 'vendor_only',
    description: "When true, ignore matches the vendor has marked as ones it won't fix.",
    required: false,
    example: 'true',
    validator: booleanString,
  },
];

const DENY_DESCRIPTION = 'Fires (once) when any vulnerability from the given list is found in the image.';

export const vulnerabilitiesGate: GateDefinition = {
  name: 'vulnerabilities',
  description: 'Checks the known vulnerabilities (CVEs and similar advisories) found in the image.',
  state: 'active',
  triggers: [
    {
      name: 'package',
      description: 'Fires for each vulnerability found in an image package that meets all of the given criteria.',
      params: [
        {
          name: 'package_type',
          description: 'Which packages to consider: all, operating-system packages only (os) or the others only (non-os).',
          required: true,
          example: 'all',
          validator: enumString(['all', 'os', 'non-os']),
        },
        {
          name: 'severity_comparison',
          description: "Operator used to compare the vulnerability's severity with severity.",
          required: false,
          example: '>',
          validator: orderComparison,
        },
        {
          name: 'severity',
          description: 'The severity level the vulnerability is compared with.',
          required: false,
          example: 'high',
          validator: enumString(['unknown', 'negligible', 'low', 'medium', 'high', 'critical']),
        },
        ...scoreParams('cvss_v3_base_score', 'CVSS v3 base score'),
        ...scoreParams('cvss_v3_exploitability_score', 'CVSS v3 exploitability subscore'),
        ...scoreParams('cvss_v3_impact_score', 'CVSS v3 impact subscore'),
        {
          name: 'fix_available',
          description: 'When given, the vulnerability must have a fixed version (true) or must not have one (false).',
          required: false,
          example: 'true',
          validator: booleanString,
        },
        {
          name: 'vendor_only',
          description: "When true, skip vulnerabilities whose fix the vendor has marked as one it won't provide.",
          required: false,
          example: 'true',
          validator: booleanString,
        },
        {
          name: 'max_days_since_creation',
          description: 'Fire only for vulnerabilities first detected in the image more than this many days ago.',
          required: false,
          example: '7',
          validator: integerString,
        },
        {
          name: 'max_days_since_fix',
          description:
            'Fire only when a fix has been available for more than this many days; used only together with fix_available=true.',
          required: false,
          example: '30',
          validator: integerString,
        },
        ...scoreParams('vendor_cvss_v3_base_score', 'vendor-assigned CVSS v3 base score'),
        ...scoreParams('vendor_cvss_v3_exploitability_score', 'vendor-assigned CVSS v3 exploitability subscore'),
        ...scoreParams('vendor_cvss_v3_impact_score', 'vendor-assigned CVSS v3 impact subscore'),
        {
          name: 'package_path_exclude',
          description:
            'Regular expression on package locations; matching non-OS packages are left out of the check.',
          required: false,
          example: '.*test\\.jar*',
          validator: regexString,
        },
        // Vigil additions (Enterprise has equivalents whose exact names are not published).
        {
          name: 'known_exploited_vulnerability',
          description:
            'When given, the vulnerability must be (true) or must not be (false) in the CISA Known Exploited Vulnerabilities catalog.',
          required: false,
          example: 'true',
          validator: booleanString,
        },
        {
          name: 'epss_score_comparison',
          description: "Operator used to compare the vulnerability's EPSS score or percentile with epss_score / epss_percentile.",
          required: false,
          example: '>',
          validator: orderComparison,
        },
        {
          name: 'epss_score',
          description: 'EPSS probability 0-1: the estimated chance of exploitation that the EPSS score is compared with.',
          required: false,
          validator: floatString,
        },
        {
          name: 'epss_percentile',
          description: "EPSS percentile (0-1) the vulnerability's percentile is compared with.",
          required: false,
          validator: floatString,
        },
      ],
    },
    {
      name: 'stale_feed_data',
      description:
        "Fires when the vulnerability data for the image's distribution was last synced longer ago than allowed, or its sync time is unknown.",
      params: [
        {
          name: 'max_days_since_sync',
          description: 'Largest accepted age, in days, of the last vulnerability data sync.',
          required: true,
          example: '10',
          validator: integerString,
        },
      ],
    },
    {
      name: 'vulnerability_data_unavailable',
      description: "Fires when there is no vulnerability data for the image's distribution packages (rpm, dpkg, apk and so on).",
      params: [],
    },
    {
      name: 'blacklist',
      description: `${DENY_DESCRIPTION} Older name of denylist.`,
      params: denyParams,
      state: 'deprecated',
      supersededBy: 'denylist',
    },
    {
      name: 'denylist',
      description: DENY_DESCRIPTION,
      params: denyParams,
    },
  ],
};
