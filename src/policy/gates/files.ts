import type { FileRecord } from '../../images/model.js';
import { type EvaluationContext, type Fired, type TriggerParams, TriggerNotEvaluableError } from '../evaluation-context.js';
import type { GateDefinition } from '../gate-types.js';
import { anyString, booleanString, enumString, isTrue, regexString } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';
import { pythonMatcher } from '../../util/python-regex.js';

const GATE = 'files';

const equalsOp = enumString(['equals', 'not_equals']);

function fired(trigger: string, message: string): Fired {
  return { triggerId: defaultTriggerId(GATE, trigger, message), message };
}

/** name_match: every path of the image that the regex matches from its start. */
async function evaluateNameMatch(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const regex = params.regex;
  if (regex === undefined) return [];
  const matches = pythonMatcher(regex);
  const files = await ctx.files();
  return files
    .filter((f) => matches(f.path))
    .map((f) => fired('name_match', `File ${f.path} matches the name regex ${regex}`));
}

/**
 * content_regex_match: the content search's matches, narrowed to one expression when regex_name is given (named by
 * its configured name or by the expression itself, which is how the reference's analyser names them).
 */
async function evaluateContentRegexMatch(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const results = await ctx.contentSearch();
  if (!results) throw new TriggerNotEvaluableError('the content search did not run for this image (it was imported, or analyzed before the search existed)');
  const wanted = params.regex_name;
  const out: Fired[] = [];
  for (const result of results) {
    for (const match of result.matches) {
      if (wanted !== undefined && match.name !== wanted && match.regex !== wanted) continue;
      out.push(fired('content_regex_match', `File ${result.path} has content matching the expression ${match.name} (${match.regex})`));
    }
  }
  return out;
}

const SETUID = 0o4000;
const SETGID = 0o2000;

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/** suid_or_guid_set: every regular file (hardlinks included) with the setuid or setgid bit. */
async function evaluateSuidOrGuidSet(ctx: EvaluationContext): Promise<Fired[]> {
  const files = await ctx.files();
  const out: Fired[] = [];
  for (const f of files) {
    if (f.type !== 'file' && f.type !== 'hardlink') continue;
    const bits = [f.mode & SETUID ? 'setuid' : '', f.mode & SETGID ? 'setgid' : ''].filter(Boolean);
    if (bits.length === 0) continue;
    out.push(fired('suid_or_guid_set', `File ${f.path} has the ${bits.join(' and ')} bit set (mode ${octal(f.mode)})`));
  }
  return out;
}

function normalisePath(path: string): string {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  return '/' + parts.join('/');
}

function parseMode(mode: string): number {
  const m = /^\s*(?:0o)?([0-7]{1,6})\s*$/i.exec(mode);
  if (!m) throw new Error(`mode ${JSON.stringify(mode)} is not an octal file mode (such as 00644)`);
  return parseInt(m[1], 8) & 0o7777;
}

/**
 * attribute_match: the named file's checksum and/or mode compared as asked; every given condition must hold for the
 * trigger to fire (an existing file with no condition given never fires). A missing file fires unless skip_missing
 * is true.
 */
async function evaluateAttributeMatch(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const filename = params.filename;
  if (filename === undefined || filename.trim() === '') return [];
  const path = normalisePath(filename.trim());
  const checksum = params.checksum?.trim();
  const checksumOp = params.checksum_match ?? 'equals';
  const algorithm = params.checksum_algorithm ?? 'sha256';
  const mode = params.mode !== undefined && params.mode.trim() !== '' ? parseMode(params.mode) : undefined;
  const modeOp = params.mode_op ?? 'equals';
  if (algorithm !== 'sha256') throw new Error(`checksum_algorithm ${JSON.stringify(algorithm)} is not supported (only sha256)`);

  const files = await ctx.files();
  const file: FileRecord | undefined = files.find((f) => f.path === path);
  if (!file) {
    if (isTrue(params.skip_missing)) return [];
    return [fired('attribute_match', `File ${path} is not present in the image (skip_missing is not true)`)];
  }

  const reasons: string[] = [];
  if (checksum) {
    const actual = file.sha256?.toLowerCase();
    const equal = actual !== undefined && actual === checksum.toLowerCase();
    if (equal !== (checksumOp === 'equals')) return [];
    reasons.push(`sha256 ${actual ?? '(none: not a regular file)'} ${checksumOp} ${checksum}`);
  }
  if (mode !== undefined) {
    const equal = (file.mode & 0o7777) === mode;
    if (equal !== (modeOp === 'equals')) return [];
    reasons.push(`mode ${octal(file.mode)} ${modeOp} ${octal(mode)}`);
  }
  if (reasons.length === 0) return [];
  return [fired('attribute_match', `File ${path} matches: ${reasons.join(' and ')}`)];
}

export const filesGate: GateDefinition = {
  name: GATE,
  description:
    'Checks the files found in the analysed image: their content, names, checksums, modes and set-user/group-id bits.',
  state: 'active',
  triggers: [
    {
      name: 'content_regex_match',
      description:
        "Fires once per file and expression for each match of the analyser's content search (VIGIL_CONTENT_SEARCH_REGEXES).",
      params: [
        {
          name: 'regex_name',
          description:
            'Restrict the check to matches of this expression, which must also be configured for the content-search analyser; without it any configured expression counts.',
          required: false,
          example: '.*password.*',
          validator: regexString,
        },
      ],
      evaluate: evaluateContentRegexMatch,
    },
    {
      name: 'name_match',
      description: 'Fires when the image contains a file whose name matches the given regular expression.',
      params: [
        {
          name: 'regex',
          description: 'Regular expression matched against the names of files in the image.',
          required: true,
          example: '.*\\.pem',
          validator: regexString,
        },
      ],
      evaluate: evaluateNameMatch,
    },
    {
      name: 'attribute_match',
      description:
        'Fires when the named file exists and its attributes (checksum and/or mode) meet the conditions given.',
      params: [
        {
          name: 'filename',
          description: 'Full path of the file whose attributes are checked.',
          required: true,
          example: '/etc/passwd',
          validator: anyString,
        },
        {
          name: 'checksum_algorithm',
          description: 'Hash algorithm the checksum is given in.',
          required: false,
          example: 'sha256',
          validator: enumString(['sha256']),
        },
        {
          name: 'checksum',
          description: "Expected checksum of the file's content.",
          required: false,
          example: '832cd0f75b227d13aac82b1f70b7f90191a4186c151f9db50851d209c45ede11',
          validator: anyString,
        },
        {
          name: 'checksum_match',
          description: "Whether the file's checksum must equal or differ from the given one for the trigger to fire.",
          required: false,
          example: 'equals',
          validator: equalsOp,
        },
        {
          name: 'mode',
          description: 'File mode (permission bits, octal) to compare with.',
          required: false,
          example: '00644',
          validator: anyString,
        },
        {
          name: 'mode_op',
          description: "Whether the file's mode must equal or differ from the given one for the trigger to fire.",
          required: false,
          example: 'equals',
          validator: equalsOp,
        },
        {
          name: 'skip_missing',
          description: 'When true, the trigger stays silent if the file is absent from the image.',
          required: false,
          example: 'true',
          validator: booleanString,
        },
      ],
      evaluate: evaluateAttributeMatch,
    },
    {
      name: 'suid_or_guid_set',
      description: 'Fires once for every file that has the setuid or setgid bit set.',
      params: [],
      evaluate: evaluateSuidOrGuidSet,
    },
  ],
};
