import type { EvaluationContext, Fired, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { anyString, enumString, regexString } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';

const GATE = 'retrieved_files';

/**
 * content_not_available: the analysis does not retrieve or store file contents, so no file's content is available
 * and this trigger always fires.
 */
async function evaluateContentNotAvailable(_ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const message = `The content of ${params.path ?? '(no path given)'} is not stored by this analysis`;
  return [{ triggerId: defaultTriggerId(GATE, 'content_not_available', message), message }];
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
      // No evaluate: the analysis does not store file contents yet, so there is nothing to apply the regex to; the
      // engine reports rules using this trigger as not evaluable.
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
    },
  ],
};
