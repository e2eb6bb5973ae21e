import type { EvaluationContext, Fired, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { anyString, enumString, regexString } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';
import { pythonMatcher } from '../../util/python-regex.js';

const GATE = 'retrieved_files';

function fired(trigger: string, message: string): Fired {
  return { triggerId: defaultTriggerId(GATE, trigger, message), message };
}

async function evaluateContentNotAvailable(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const path = params.path ?? '';
  if ((await ctx.retrievedFiles())?.has(path)) return [];
  return [fired('content_not_available', `${path} was not retrieved from the image (it is missing, too large, or not configured for retrieval)`)];
}

/**
 * content_regex: the regex is tried at the start of each line of the retrieved file, as the analyser's searches
 * do. `match` fires on the first matching line; `no_match` fires when no line matches. A file that was not
 * retrieved fires neither (content_not_available covers that).
 */
async function evaluateContentRegex(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const path = params.path ?? '';
  const regex = params.regex ?? '';
  const content = (await ctx.retrievedFiles())?.get(path);
  if (!content) return [];
  const matches = pythonMatcher(regex);
  const lines = content.toString('utf8').split('\n');
  const at = lines.findIndex((line) => matches(line.replace(/\r$/, '')));
  if (params.check === 'no_match')
    return at < 0 ? [fired('content_regex', `No line of ${path} matches the regex ${regex}`)] : [];
  return at >= 0 ? [fired('content_regex', `${path} has content matching the regex ${regex}`)] : [];
}

const path: ParamDefinition = {
  name: 'path',
  description: 'Path of the file, in the image, that analysis should have retrieved.',
  required: true,
  example: '/etc/httpd.conf',
  validator: anyString,
};

export const retrievedFilesGate: GateDefinition = {
  name: GATE,
  description:
    'Checks the presence and content of files that analysis copied out of the image (as configured for the analyser).',
  state: 'active',
  triggers: [
    {
      name: 'content_not_available',
      description: 'Fires when the given file was not retrieved from the image during analysis.',
      params: [path],
      evaluate: evaluateContentNotAvailable,
    },
    {
      name: 'content_regex',
      description: 'Applies a regular expression to the content of a retrieved file and fires on a match or on no match.',
      params: [
        path,
        {
          name: 'check',
          description: 'Fire when the expression matches the content (match) or when it does not (no_match).',
          required: true,
          example: 'match',
          validator: enumString(['match', 'no_match']),
        },
        {
          name: 'regex',
          description: "Regular expression applied to the file's content.",
          required: true,
          example: '.*SSlEnabled.*',
          validator: regexString,
        },
      ],
      evaluate: evaluateContentRegex,
    },
  ],
};
