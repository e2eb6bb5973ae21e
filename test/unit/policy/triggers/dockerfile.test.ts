import { describe, expect, it } from 'vitest';
import { parseDockerfile } from '../../../../src/policy/dockerfile-parse.js';
import type { EvaluationContext, ImageFacts, TriggerParams } from '../../../../src/policy/evaluation-context.js';
import { dockerfileGate } from '../../../../src/policy/gates/dockerfile.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import { fakeContext, run } from './fake-context.js';

function withDockerfile(text: string | null, mode: ImageFacts['dockerfile']['mode'] = 'Actual'): EvaluationContext {
  const base = fakeContext();
  return { ...base, image: { ...base.image, dockerfile: { mode, text } } };
}

async function messages(trigger: string, ctx: EvaluationContext, params: TriggerParams = {}): Promise<string[]> {
  return (await run(dockerfileGate, trigger, ctx, params)).map((f) => f.message);
}

const DOCKERFILE = [
  '# syntax=docker/dockerfile:1',
  'FROM debian:12 AS build',
  'run apt-get update && \\',
  '    # a comment inside the continuation',
  '    apt-get install -y curl',
  '',
  'FROM scratch',
  'Label org.opencontainers.image.title=app',
  'EXPOSE 80/tcp 443',
  'CMD ["/app"]',
].join('\n');

describe('parseDockerfile', () => {
  it('joins continuation lines, drops comments and upper-cases keywords', () => {
    expect(parseDockerfile(DOCKERFILE)).toEqual([
      { keyword: 'FROM', args: 'debian:12 AS build', line: 2 },
      { keyword: 'RUN', args: 'apt-get update && apt-get install -y curl', line: 3 },
      { keyword: 'FROM', args: 'scratch', line: 7 },
      { keyword: 'LABEL', args: 'org.opencontainers.image.title=app', line: 8 },
      { keyword: 'EXPOSE', args: '80/tcp 443', line: 9 },
      { keyword: 'CMD', args: '["/app"]', line: 10 },
    ]);
  });

  it('handles CRLF, trailing blanks after the backslash, a continuation at the end and the escape directive', () => {
    expect(parseDockerfile('FROM a\r\nRUN x \\  \r\n  y\r\nRUN z \\')).toEqual([
      { keyword: 'FROM', args: 'a', line: 1 },
      { keyword: 'RUN', args: 'x y', line: 2 },
      { keyword: 'RUN', args: 'z', line: 4 },
    ]);
    expect(parseDockerfile('# escape=`\nFROM a\nRUN dir c:\\ `\n  && echo hi')).toEqual([
      { keyword: 'FROM', args: 'a', line: 2 },
      { keyword: 'RUN', args: 'dir c:\\ && echo hi', line: 3 },
    ]);
  });

  it('keeps heredoc bodies with their instruction', () => {
    expect(parseDockerfile('FROM a\nRUN <<EOF\nUSER root\nEOF\nUSER app')).toEqual([
      { keyword: 'FROM', args: 'a', line: 1 },
      { keyword: 'RUN', args: '<<EOF\nUSER root\nEOF', line: 2 },
      { keyword: 'USER', args: 'app', line: 5 },
    ]);
  });
});

describe('dockerfile/instruction', () => {
  const ctx = withDockerfile(DOCKERFILE);

  it('= fires per instruction whose arguments equal the value, with the default trigger id', async () => {
    const fired = await run(dockerfileGate, 'instruction', ctx, { instruction: 'FROM', check: '=', value: 'scratch' });
    expect(fired).toEqual([
      {
        triggerId: defaultTriggerId('dockerfile', 'instruction', "Dockerfile instruction FROM check '=' against 'scratch' matched line 'FROM scratch'"),
        message: "Dockerfile instruction FROM check '=' against 'scratch' matched line 'FROM scratch'",
      },
    ]);
  });

  it('!= fires per instruction whose arguments differ', async () => {
    expect(await messages('instruction', ctx, { instruction: 'FROM', check: '!=', value: 'scratch' })).toEqual([
      "Dockerfile instruction FROM check '!=' against 'scratch' matched line 'FROM debian:12 AS build'",
    ]);
  });

  it('exists fires per instruction of the kind (keywords are case-insensitive)', async () => {
    expect(await messages('instruction', ctx, { instruction: 'LABEL', check: 'exists' })).toEqual([
      "Dockerfile instruction LABEL check 'exists' matched line 'LABEL org.opencontainers.image.title=app'",
    ]);
    expect(await messages('instruction', ctx, { instruction: 'RUN', check: 'exists' })).toEqual([
      "Dockerfile instruction RUN check 'exists' matched line 'RUN apt-get update && apt-get install -y curl'",
    ]);
    expect(await messages('instruction', ctx, { instruction: 'HEALTHCHECK', check: 'exists' })).toEqual([]);
  });

  it('not_exists fires once when there is no such instruction', async () => {
    expect(await messages('instruction', ctx, { instruction: 'HEALTHCHECK', check: 'not_exists' })).toEqual([
      "Dockerfile instruction HEALTHCHECK not found (check 'not_exists')",
    ]);
    expect(await messages('instruction', ctx, { instruction: 'FROM', check: 'not_exists' })).toEqual([]);
  });

  it('like matches the regex from the start of the arguments; not_like is its negation', async () => {
    expect(await messages('instruction', ctx, { instruction: 'FROM', check: 'like', value: 'debian:.*' })).toEqual([
      "Dockerfile instruction FROM check 'like' against 'debian:.*' matched line 'FROM debian:12 AS build'",
    ]);
    // Anchored at the start: "12" occurs in the arguments but not at their beginning.
    expect(await messages('instruction', ctx, { instruction: 'FROM', check: 'like', value: '12' })).toEqual([]);
    expect(await messages('instruction', ctx, { instruction: 'RUN', check: 'like', value: '.*apt-get install' })).toHaveLength(1);
    expect(await messages('instruction', ctx, { instruction: 'FROM', check: 'not_like', value: 'debian:.*' })).toEqual([
      "Dockerfile instruction FROM check 'not_like' against 'debian:.*' matched line 'FROM scratch'",
    ]);
  });

  it('in and not_in test membership of a comma-separated list', async () => {
    expect(await messages('instruction', ctx, { instruction: 'FROM', check: 'in', value: 'alpine, scratch' })).toEqual([
      "Dockerfile instruction FROM check 'in' against 'alpine, scratch' matched line 'FROM scratch'",
    ]);
    expect(await messages('instruction', ctx, { instruction: 'FROM', check: 'not_in', value: 'alpine,scratch' })).toEqual([
      "Dockerfile instruction FROM check 'not_in' against 'alpine,scratch' matched line 'FROM debian:12 AS build'",
    ]);
  });

  it('needs a value for the comparing checks', async () => {
    for (const check of ['=', '!=', 'like', 'not_like', 'in', 'not_in']) {
      expect(await messages('instruction', ctx, { instruction: 'FROM', check })).toEqual([]);
    }
  });

  it('reports identical lines once', async () => {
    const twice = withDockerfile('FROM a\nRUN make\nRUN make');
    expect(await messages('instruction', twice, { instruction: 'RUN', check: 'exists' })).toHaveLength(1);
  });

  it('finds nothing without Dockerfile text', async () => {
    expect(await messages('instruction', withDockerfile(null, null), { instruction: 'FROM', check: 'not_exists' })).toEqual([]);
    expect(await messages('instruction', withDockerfile('# only a comment\n'), { instruction: 'FROM', check: 'not_exists' })).toEqual([]);
  });

  it('actual_dockerfile_only=true skips guessed Dockerfiles', async () => {
    const guessed = withDockerfile('RUN echo hi\n', 'Guessed');
    const params = { instruction: 'RUN', check: 'exists' };
    expect(await messages('instruction', guessed, params)).toHaveLength(1);
    expect(await messages('instruction', guessed, { ...params, actual_dockerfile_only: 'True' })).toEqual([]);
    expect(await messages('instruction', withDockerfile('RUN echo hi\n'), { ...params, actual_dockerfile_only: 'true' })).toHaveLength(1);
    expect(await messages('instruction', guessed, { ...params, actual_dockerfile_only: 'false' })).toHaveLength(1);
  });

  it('rejects an invalid regular expression', async () => {
    await expect(run(dockerfileGate, 'instruction', ctx, { instruction: 'FROM', check: 'like', value: '(' })).rejects.toThrow(
      /not a valid regular expression/,
    );
  });
});

describe('dockerfile/effective_user', () => {
  it('is root when there is no USER instruction', async () => {
    const ctx = withDockerfile('FROM debian:12\nRUN true\n');
    expect(await messages('effective_user', ctx, { users: 'root', type: 'blacklist' })).toEqual([
      'Effective user root (no USER instruction) is in the denied list',
    ]);
    expect(await messages('effective_user', ctx, { users: 'app,nobody', type: 'whitelist' })).toEqual([
      'Effective user root (no USER instruction) is not in the allowed list',
    ]);
    expect(await messages('effective_user', ctx, { users: 'root', type: 'whitelist' })).toEqual([]);
  });

  it('takes the last USER of the final stage, without its group', async () => {
    const ctx = withDockerfile('FROM a AS build\nUSER builder\nFROM b\nUSER root\nuser app:app\n');
    expect(await messages('effective_user', ctx, { users: 'app', type: 'blacklist' })).toEqual(['Effective user app is in the denied list']);
    expect(await messages('effective_user', ctx, { users: 'app', type: 'whitelist' })).toEqual([]);
    expect(await messages('effective_user', ctx, { users: 'root, builder', type: 'blacklist' })).toEqual([]);
    // A USER of an earlier stage does not carry into the final image.
    const staged = withDockerfile('FROM a AS build\nUSER builder\nFROM b\nRUN true\n');
    expect(await messages('effective_user', staged, { users: 'root', type: 'blacklist' })).toEqual([
      'Effective user root (no USER instruction) is in the denied list',
    ]);
  });

  it('resolves variables the Dockerfile defines and treats uid 0 as root', async () => {
    const ctx = withDockerfile('FROM a\nARG APP_USER=svc\nUSER ${APP_USER}\n');
    expect(await messages('effective_user', ctx, { users: 'svc', type: 'blacklist' })).toEqual(['Effective user svc is in the denied list']);
    const uid0 = withDockerfile('FROM a\nUSER 0:0\n');
    expect(await messages('effective_user', uid0, { users: 'root', type: 'blacklist' })).toEqual(['Effective user 0 is in the denied list']);
  });

  it('applies to guessed Dockerfiles and finds nothing without one', async () => {
    expect(await messages('effective_user', withDockerfile('USER nobody\n', 'Guessed'), { users: 'root', type: 'whitelist' })).toEqual([
      'Effective user nobody is not in the allowed list',
    ]);
    expect(await messages('effective_user', withDockerfile(null, null), { users: 'root', type: 'blacklist' })).toEqual([]);
  });
});

describe('dockerfile/exposed_ports', () => {
  const ctx = withDockerfile('FROM a\nEXPOSE 80/tcp 443\nexpose 53/udp\nEXPOSE 80\n');

  it('whitelist fires per exposed port not in the list (80 and 80/tcp are one port)', async () => {
    expect(await messages('exposed_ports', ctx, { ports: '80,443', type: 'whitelist' })).toEqual([
      'Dockerfile exposes port 53/udp, which is not in the allowed list',
    ]);
    expect(await messages('exposed_ports', ctx, { ports: '8080', type: 'whitelist' })).toEqual([
      'Dockerfile exposes port 80/tcp, which is not in the allowed list',
      'Dockerfile exposes port 443/tcp, which is not in the allowed list',
      'Dockerfile exposes port 53/udp, which is not in the allowed list',
    ]);
  });

  it('blacklist fires per exposed port in the list', async () => {
    expect(await messages('exposed_ports', ctx, { ports: '22,80,53', type: 'blacklist' })).toEqual([
      'Dockerfile exposes port 80/tcp, which is in the denied list',
      'Dockerfile exposes port 53/udp, which is in the denied list',
    ]);
    expect(await messages('exposed_ports', ctx, { ports: '22', type: 'blacklist' })).toEqual([]);
  });

  it('handles port ranges and variables', async () => {
    const ranged = withDockerfile('FROM a\nENV PORT=9000\nEXPOSE 8000-8002 $PORT\n');
    expect(await messages('exposed_ports', ranged, { ports: '8000,8001,8002', type: 'whitelist' })).toEqual([
      'Dockerfile exposes port 9000/tcp, which is not in the allowed list',
    ]);
    expect(await messages('exposed_ports', ranged, { ports: '8000,8001', type: 'whitelist' })).toEqual([
      'Dockerfile exposes port 8000-8002/tcp, which is not in the allowed list',
      'Dockerfile exposes port 9000/tcp, which is not in the allowed list',
    ]);
    expect(await messages('exposed_ports', ranged, { ports: '8001,9000', type: 'blacklist' })).toEqual([
      'Dockerfile exposes port 8001/tcp (in range 8000-8002/tcp), which is in the denied list',
      'Dockerfile exposes port 9000/tcp, which is in the denied list',
    ]);
  });

  it('only counts the final stage', async () => {
    const staged = withDockerfile('FROM a AS build\nEXPOSE 22\nFROM b\nEXPOSE 80\n');
    expect(await messages('exposed_ports', staged, { ports: '22', type: 'blacklist' })).toEqual([]);
  });

  it('actual_dockerfile_only=true skips guessed Dockerfiles', async () => {
    const guessed = withDockerfile('EXPOSE 22\n', 'Guessed');
    expect(await messages('exposed_ports', guessed, { ports: '22', type: 'blacklist' })).toHaveLength(1);
    expect(await messages('exposed_ports', guessed, { ports: '22', type: 'blacklist', actual_dockerfile_only: 'true' })).toEqual([]);
  });
});

describe('dockerfile/exposed_ports from the image config', () => {
  const configOnly = (ports: string[], text: string | null = null, mode: ImageFacts['dockerfile']['mode'] = null): EvaluationContext => {
    const base = fakeContext({ configExposedPorts: ports });
    return { ...base, image: { ...base.image, dockerfile: { mode, text } } };
  };

  it("reads the config's ExposedPorts when the image has no Dockerfile", async () => {
    const ctx = configOnly(['22/tcp', '8080/tcp']);
    expect(await messages('exposed_ports', ctx, { ports: '22', type: 'blacklist' })).toEqual(['Image config exposes port 22/tcp, which is in the denied list']);
    expect(await messages('exposed_ports', ctx, { ports: '8080', type: 'whitelist' })).toEqual(['Image config exposes port 22/tcp, which is not in the allowed list']);
  });

  it('adds config ports the Dockerfile does not name, each port once', async () => {
    const ctx = configOnly(['80/tcp', '22/tcp', '53/udp'], 'FROM a\nEXPOSE 80\n', 'Actual');
    expect(await messages('exposed_ports', ctx, { ports: '22,80,53', type: 'blacklist' })).toEqual([
      'Dockerfile exposes port 80/tcp, which is in the denied list',
      'Image config exposes port 22/tcp, which is in the denied list',
      'Image config exposes port 53/udp, which is in the denied list',
    ]);
  });

  it('actual_dockerfile_only=true reads only the Dockerfile the user supplied', async () => {
    expect(await messages('exposed_ports', configOnly(['22/tcp']), { ports: '22', type: 'blacklist', actual_dockerfile_only: 'true' })).toEqual([]);
    expect(await messages('exposed_ports', configOnly(['22/tcp'], 'FROM a\n', 'Actual'), { ports: '22', type: 'blacklist', actual_dockerfile_only: 'true' })).toEqual([]);
  });
});

describe('dockerfile/no_dockerfile_provided', () => {
  it('fires unless the Dockerfile was supplied by the user', async () => {
    expect(await messages('no_dockerfile_provided', withDockerfile('FROM a'))).toEqual([]);
    const expected = ['Image was not analysed with an actual Dockerfile'];
    expect(await messages('no_dockerfile_provided', withDockerfile('RUN x', 'Guessed'))).toEqual(expected);
    expect(await messages('no_dockerfile_provided', withDockerfile(null, null))).toEqual(expected);
  });
});
