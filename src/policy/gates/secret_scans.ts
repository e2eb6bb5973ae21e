import { type EvaluationContext, type Fired, type TriggerParams, TriggerNotEvaluableError } from '../evaluation-context.js';
import type { GateDefinition } from '../gate-types.js';
import { anyString, enumString, regexString } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';
import { pythonMatcher } from '../../util/python-regex.js';

const GATE = 'secret_scans';
const TRIGGER = 'content_regex_checks';

function fired(message: string): Fired {
  return { triggerId: defaultTriggerId(GATE, TRIGGER, message), message };
}

/**
 * content_regex_checks: the secret search's matches, narrowed by expression name and by file path (a regex with
 * re.match semantics). `found` fires once per file and expression; `notfound` fires once when nothing is left.
 * Messages name where a secret is, never the secret.
 */
async function evaluateContentRegexChecks(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const results = await ctx.secretSearch();
  if (!results) throw new TriggerNotEvaluableError('the secret search did not run for this image (it was imported, or analyzed before the search existed)');
  const name = params.content_regex_name;
  const inPath = params.filename_regex === undefined ? () => true : pythonMatcher(params.filename_regex, 'filename_regex');
  const found: Fired[] = [];
  for (const result of results) {
    if (!inPath(result.path)) continue;
    for (const match of result.matches) {
      if (name !== undefined && match.name !== name) continue;
      found.push(fired(`The secret search found a match for ${match.name} in ${result.path}`));
    }
  }
  if (params.match_type !== 'notfound') return found;
  if (found.length > 0) return [];
  const what = name ?? 'any configured expression';
  const where = params.filename_regex === undefined ? 'any file' : `files matching ${params.filename_regex}`;
  return [fired(`The secret search found no match for ${what} in ${where}`)];
}

export const secretScansGate: GateDefinition = {
  name: 'secret_scans',
  description:
    "Checks for secrets and other sensitive content the analyser's secret search found in the image, using its configured expressions.",
  state: 'active',
  // Reads the results of the secret search run at analysis time (VIGIL_SECRET_SEARCH_REGEXES).
  triggers: [
    {
      name: TRIGGER,
      description:
        'Fires depending on whether the secret search found matches for the configured expressions, optionally narrowed by expression name and file name.',
      params: [
        {
          name: 'content_regex_name',
          description:
            'Name of one of the expressions configured for the secret search; only its matches count. Without it, all configured expressions count.',
          required: false,
          example: 'AWS_ACCESS_KEY',
          validator: anyString,
        },
        {
          name: 'filename_regex',
          description: 'Regular expression on file paths; only matches in files whose path fits it count.',
          required: false,
          example: '/etc/.*',
          validator: regexString,
        },
        {
          name: 'match_type',
          description: 'Fire when a match is found (found, the default) or when none is (notfound).',
          required: false,
          example: 'found',
          validator: enumString(['notfound', 'found']),
        },
      ],
      evaluate: evaluateContentRegexChecks,
    },
  ],
};
