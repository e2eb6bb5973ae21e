import { expandVariables, finalStage, forEachWithVariables, parseDockerfile, variablesBefore } from '../dockerfile-parse.js';
import type { DockerfileInstruction } from '../dockerfile-parse.js';
import type { EvaluationContext, Fired, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { booleanString, commaDelimitedNumbers, commaDelimitedStrings, enumString, anyString, isTrue, listOf } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';
import { listTypeString } from './common.js';
import { pythonMatcher } from '../../util/python-regex.js';

const GATE = 'dockerfile';

const DOCKERFILE_INSTRUCTIONS = [
  'ADD',
  'ARG',
  'COPY',
  'CMD',
  'ENTRYPOINT',
  'ENV',
  'EXPOSE',
  'FROM',
  'HEALTHCHECK',
  'LABEL',
  'MAINTAINER',
  'ONBUILD',
  'USER',
  'RUN',
  'SHELL',
  'STOPSIGNAL',
  'VOLUME',
  'WORKDIR',
] as const;

const actualDockerfileOnly: ParamDefinition = {
  name: 'actual_dockerfile_only',
  description:
    'When true, evaluate only a Dockerfile supplied by the user and skip images whose Dockerfile was inferred from the image history.',
  required: false,
  example: 'true',
  validator: booleanString,
};

function fired(trigger: string, message: string): Fired {
  return { triggerId: defaultTriggerId(GATE, trigger, message), message };
}

/** Drops repeated findings (the same message twice would be the same finding twice, under the same trigger id). */
function unique(findings: Fired[]): Fired[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    if (seen.has(f.triggerId)) return false;
    seen.add(f.triggerId);
    return true;
  });
}

/**
 * The image's Dockerfile instructions, or undefined when there are none to check: no Dockerfile text, one without
 * instructions, or (with actual_dockerfile_only) a Dockerfile that was not supplied by the user.
 */
function dockerfileInstructions(ctx: EvaluationContext, actualOnly: boolean): DockerfileInstruction[] | undefined {
  const { mode, text } = ctx.image.dockerfile;
  if (actualOnly && mode !== 'Actual') return undefined;
  if (!text) return undefined;
  const instructions = parseDockerfile(text);
  return instructions.length > 0 ? instructions : undefined;
}

type InstructionCheck = (args: string) => boolean;

/** The test an instruction's arguments must pass for `check`, or undefined when `check` needs a value and has none. */
function instructionCheck(check: string, value: string | undefined): InstructionCheck | undefined {
  if (check === 'exists') return () => true;
  if (value === undefined) return undefined;
  switch (check) {
    case '=':
      return (args) => args === value;
    case '!=':
      return (args) => args !== value;
    case 'like': {
      const matches = pythonMatcher(value, 'value');
      return (args) => matches(args);
    }
    case 'not_like': {
      const matches = pythonMatcher(value, 'value');
      return (args) => !matches(args);
    }
    case 'in': {
      const values = listOf(value);
      return (args) => values.includes(args);
    }
    case 'not_in': {
      const values = listOf(value);
      return (args) => !values.includes(args);
    }
    default:
      throw new Error(`check ${JSON.stringify(check)} is not a Dockerfile instruction check`);
  }
}

/**
 * instruction: fires once per instruction of the given kind whose arguments pass the check (not_exists: once, when
 * the Dockerfile has no such instruction). Arguments are compared as written, after the keyword, trimmed.
 */
async function evaluateInstruction(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const keyword = params.instruction?.toUpperCase();
  const check = params.check;
  const value = params.value;
  if (!keyword || !check) return [];
  const instructions = dockerfileInstructions(ctx, isTrue(params.actual_dockerfile_only));
  if (!instructions) return [];
  const ofKind = instructions.filter((ins) => ins.keyword === keyword);

  if (check === 'not_exists') {
    return ofKind.length > 0 ? [] : [fired('instruction', `Dockerfile instruction ${keyword} not found (check 'not_exists')`)];
  }
  const passes = instructionCheck(check, value);
  if (!passes) return [];
  const against = check === 'exists' ? '' : ` against '${value ?? ''}'`;
  return unique(
    ofKind
      .filter((ins) => passes(ins.args))
      .map((ins) => fired('instruction', `Dockerfile instruction ${keyword} check '${check}'${against} matched line '${keyword} ${ins.args}'`)),
  );
}

/** Whether two user names denote the same user: equal, or root and uid 0. */
function sameUser(a: string, b: string): boolean {
  const root = (u: string) => (u === '0' ? 'root' : u);
  return root(a) === root(b);
}

/**
 * The user the image runs as: the last USER of the final stage, variables resolved where the Dockerfile defines
 * them, the group (`user:group`) dropped; root when the final stage has no USER.
 */
function effectiveUser(instructions: readonly DockerfileInstruction[]): { user: string; explicit: boolean } {
  const stage = finalStage(instructions);
  for (let idx = stage.length - 1; idx >= 0; idx -= 1) {
    if (stage[idx].keyword !== 'USER') continue;
    let spec = expandVariables(stage[idx].args, variablesBefore(stage, idx)).trim();
    spec = spec.replace(/^\[\s*(.*?)\s*\]$/s, '$1').replace(/^(["'])(.*)\1$/s, '$2').trim();
    const user = spec.split(':')[0].trim();
    if (user) return { user, explicit: true };
  }
  return { user: 'root', explicit: false };
}

/** effective_user: the effective user against an allowed (whitelist) or forbidden (blacklist) list of names. */
async function evaluateEffectiveUser(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const users = listOf(params.users ?? '');
  const type = params.type;
  const instructions = dockerfileInstructions(ctx, false);
  if (!instructions || (type !== 'whitelist' && type !== 'blacklist')) return [];
  const { user, explicit } = effectiveUser(instructions);
  const listed = users.some((u) => sameUser(u, user));
  const shown = explicit ? `Effective user ${user}` : `Effective user ${user} (no USER instruction)`;
  if (type === 'whitelist' && !listed) return [fired('effective_user', `${shown} is not in the allowed list`)];
  if (type === 'blacklist' && listed) return [fired('effective_user', `${shown} is in the denied list`)];
  return [];
}

/** One EXPOSE entry: a port or port range with its protocol, or something unreadable (e.g. an unresolved `$PORT`). */
interface ExposedPort {
  /** As reported: `80/tcp`, `8000-8010/udp`, or the entry as written when unreadable. */
  label: string;
  /** Where the port was found, as the message says it. */
  source: 'Dockerfile' | 'Image config';
  from?: number;
  to?: number;
}

function exposedPort(entry: string, source: ExposedPort['source']): ExposedPort {
  const m = /^(\d+)(?:-(\d+))?(?:\/([A-Za-z]+))?$/.exec(entry);
  if (!m) return { label: entry, source };
  const from = Number(m[1]);
  const to = m[2] !== undefined ? Number(m[2]) : from;
  const protocol = (m[3] ?? 'tcp').toLowerCase();
  return { label: `${from === to ? from : `${from}-${to}`}/${protocol}`, source, from, to };
}

/**
 * The ports the final stage exposes, in order, then those only the image config's `ExposedPorts` lists (an image
 * built without a known Dockerfile, or whose base image exposed them); each once (`80` and `80/tcp` are one port).
 */
function exposedPorts(instructions: readonly DockerfileInstruction[] | undefined, configPorts: readonly string[]): ExposedPort[] {
  const ports = new Map<string, ExposedPort>();
  const add = (port: ExposedPort) => {
    if (!ports.has(port.label)) ports.set(port.label, port);
  };
  if (instructions) {
    forEachWithVariables(finalStage(instructions), (ins, vars) => {
      if (ins.keyword !== 'EXPOSE') return;
      for (const entry of expandVariables(ins.args, vars).split(/\s+/).filter(Boolean)) add(exposedPort(entry, 'Dockerfile'));
    });
  }
  for (const entry of configPorts) add(exposedPort(entry, 'Image config'));
  return [...ports.values()];
}

/**
 * exposed_ports: with a whitelist, fires for every exposed port (or range) not wholly in the list, and for entries
 * that are not readable port numbers; with a blacklist, fires for every listed port that is exposed. Ports come from
 * the Dockerfile and the image config (not the config with actual_dockerfile_only, which asks for the user's file).
 */
async function evaluateExposedPorts(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const listed = new Set(listOf(params.ports ?? '').map(Number));
  const type = params.type;
  const actualOnly = isTrue(params.actual_dockerfile_only);
  const instructions = dockerfileInstructions(ctx, actualOnly);
  if (type !== 'whitelist' && type !== 'blacklist') return [];
  if (actualOnly && !instructions) return [];
  const out: Fired[] = [];
  for (const port of exposedPorts(instructions, actualOnly ? [] : ctx.image.configExposedPorts)) {
    if (type === 'whitelist') {
      let allowed = port.from !== undefined && port.to !== undefined;
      for (let p = port.from ?? 0; allowed && p <= (port.to ?? -1); p += 1) allowed = listed.has(p);
      if (!allowed) out.push(fired('exposed_ports', `${port.source} exposes port ${port.label}, which is not in the allowed list`));
    } else if (port.from !== undefined && port.to !== undefined) {
      const { from, to } = port;
      const protocol = port.label.slice(port.label.indexOf('/'));
      const denied = [...listed].filter((p) => p >= from && p <= to).sort((a, b) => a - b);
      for (const p of denied) {
        const shown = from === to ? port.label : `${p}${protocol} (in range ${port.label})`;
        out.push(fired('exposed_ports', `${port.source} exposes port ${shown}, which is in the denied list`));
      }
    }
  }
  return out;
}

/** no_dockerfile_provided: fires unless the user supplied the Dockerfile at analysis time. */
async function evaluateNoDockerfileProvided(ctx: EvaluationContext): Promise<Fired[]> {
  if (ctx.image.dockerfile.mode === 'Actual') return [];
  return [fired('no_dockerfile_provided', 'Image was not analysed with an actual Dockerfile')];
}

export const dockerfileGate: GateDefinition = {
  name: GATE,
  description:
    "Checks the image's Dockerfile: the one supplied at analysis time if there was one, otherwise one reconstructed from the image history.",
  state: 'active',
  triggers: [
    {
      name: 'instruction',
      description:
        'Fires when a Dockerfile instruction of the given kind satisfies the given check against the given value.',
      params: [
        {
          name: 'instruction',
          description: 'Which Dockerfile instruction to examine (upper case, as written in a Dockerfile).',
          required: true,
          // The upstream example is lower case ("from"), which its own case-sensitive enum rejects.
          example: 'FROM',
          validator: enumString(DOCKERFILE_INSTRUCTIONS),
        },
        {
          name: 'check',
          description: 'How the instruction is tested (equality, presence, pattern or list membership).',
          required: true,
          example: '=',
          validator: enumString(['=', '!=', 'exists', 'not_exists', 'like', 'not_like', 'in', 'not_in']),
        },
        {
          name: 'value',
          description: "What the instruction's arguments are compared with; not needed for exists/not_exists.",
          required: false,
          example: 'scratch',
          validator: anyString,
        },
        actualDockerfileOnly,
      ],
      evaluate: evaluateInstruction,
    },
    {
      name: 'effective_user',
      description:
        'Fires depending on whether the user the image runs as (the last USER in its history) is in an allowed or a forbidden list of names.',
      params: [
        {
          name: 'users',
          description: 'User names compared with the effective user, i.e. the final USER entry in the image history.',
          required: true,
          example: 'root,docker',
          validator: commaDelimitedStrings,
        },
        {
          name: 'type',
          description: 'Whether the listed users are the only ones allowed (whitelist) or are forbidden (blacklist).',
          required: true,
          example: 'blacklist',
          validator: listTypeString,
        },
      ],
      evaluate: evaluateEffectiveUser,
    },
    {
      name: 'exposed_ports',
      description: 'Fires on ports the image exposes, checked against an allowed or a forbidden list.',
      params: [
        {
          name: 'ports',
          description: 'Port numbers to check the exposed ports against.',
          required: true,
          example: '80,8080,8088',
          validator: commaDelimitedNumbers,
        },
        {
          name: 'type',
          description: 'Whether the listed ports are the only ones allowed (whitelist) or are forbidden (blacklist).',
          required: true,
          example: 'blacklist',
          validator: listTypeString,
        },
        actualDockerfileOnly,
      ],
      evaluate: evaluateExposedPorts,
    },
    {
      name: 'no_dockerfile_provided',
      description: 'Fires when the image was analysed without the user supplying its actual Dockerfile.',
      params: [],
      evaluate: evaluateNoDockerfileProvided,
    },
  ],
};
