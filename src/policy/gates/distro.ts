import type { EvaluationContext, Fired, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition } from '../gate-types.js';
import { anyString } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';
import { orderComparison, satisfiesOrder } from './common.js';

const GATE = 'distro';

/** One dot-separated component: its leading number (if any) and the rest (`0_alpha2` → 0, `_alpha2`). */
function versionComponent(part: string): { num: number | undefined; rest: string } {
  const m = /^(\d*)(.*)$/s.exec(part) as RegExpExecArray;
  return { num: m[1] === '' ? undefined : Number(m[1]), rest: m[2] };
}

function compareComponents(a: string, b: string): number {
  const x = versionComponent(a);
  const y = versionComponent(b);
  if (x.num !== undefined && y.num !== undefined && x.num !== y.num) return x.num < y.num ? -1 : 1;
  if (x.num !== undefined && y.num === undefined) return 1;
  if (x.num === undefined && y.num !== undefined) return -1;
  return x.rest === y.rest ? 0 : x.rest < y.rest ? -1 : 1;
}

/**
 * Compares a distribution version with a policy's version, dot-separated components numerically, to the precision
 * the policy gives: the image's version is cut to as many components as the policy's, so `8` stands for the whole
 * 8.x series (8.9 = 8, 8.9 < 9) and `3.18` for 3.18.x, while `3.18.0` is exact. Components the image's version lacks
 * count as 0 (12 < 12.1). Undefined when either version is empty.
 */
export function compareDistroVersions(imageVersion: string, policyVersion: string): number | undefined {
  const wanted = policyVersion.trim().split('.');
  const have = imageVersion.trim().split('.');
  if (imageVersion.trim() === '' || policyVersion.trim() === '') return undefined;
  for (let i = 0; i < wanted.length; i += 1) {
    const c = compareComponents(have[i] ?? '0', wanted[i]);
    if (c !== 0) return c;
  }
  return 0;
}


/**
 * deny: fires when the image's distribution is the named one (case-insensitive) and, when a version is given, the
 * image's distribution version compares with it as `check` says (default `=`).
 */
async function evaluateDeny(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const denied = params.distro?.trim();
  const distro = ctx.image.distro;
  if (!denied || !distro || distro.name.toLowerCase() !== denied.toLowerCase()) return [];
  const image = `${distro.name}${distro.version ? ` ${distro.version}` : ''}`;
  const version = params.version?.trim();
  let message: string;
  if (!version) {
    message = `Image distro ${image} is denied (${denied})`;
  } else {
    const check = params.check ?? '=';
    const cmp = compareDistroVersions(distro.version ?? '', version);
    if (cmp === undefined || !satisfiesOrder(cmp, check)) return [];
    message = `Image distro ${image} is denied (${denied} ${check} ${version})`;
  }
  return [{ triggerId: defaultTriggerId(GATE, 'deny', message), message }];
}

export const distroGate: GateDefinition = {
  name: GATE,
  description: "Checks the image's operating-system distribution and its version.",
  state: 'active',
  triggers: [
    {
      name: 'deny',
      description:
        "Fires when the image's distribution is the named one and, if a version is given, its version satisfies the check.",
      params: [
        {
          name: 'distro',
          description: 'Distribution identifier to match, as the analysis reports it (e.g. debian, alpine, rhel).',
          required: true,
          example: 'debian',
          validator: anyString,
        },
        {
          name: 'version',
          description: "Distribution version the image's version is compared with.",
          required: false,
          validator: anyString,
        },
        {
          name: 'check',
          description: "Operator used to compare the image's distribution version with version.",
          required: false,
          validator: orderComparison,
        },
      ],
      evaluate: evaluateDeny,
    },
  ],
};
