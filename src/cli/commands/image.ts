/** `vigil image ...`: add, list, get, delete, content, vulns, check, sbom. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { components } from '../../../generated/openapi-types.js';
import { CliError, EXIT } from '../exit-codes.js';
import { canonicalTag, evaluationTag, resolveImage, waitForAnalysis, type Image } from '../images.js';
import { nonNegativeInteger, oneOf } from '../options.js';
import { fieldsView, statusStyle, type Column } from '../output.js';
import type { Session } from '../session.js';
import { showFindings } from '../vulnerabilities.js';

type Schemas = components['schemas'];

const IMAGE_COLUMNS: Column<Image>[] = [
  { header: 'digest', value: (i) => i.image_digest },
  { header: 'tags', value: (i) => i.image_detail.filter((d) => d.current).map((d) => d.full_tag) },
  { header: 'analysis', value: (i) => i.analysis_status, style: statusStyle },
  { header: 'status', value: (i) => i.image_status },
  { header: 'analyzed at', value: (i) => i.analyzed_at },
];

function imageFields(image: Image): [string, unknown][] {
  const meta = image.image_content?.metadata;
  return [
    ['digest', image.image_digest],
    ['tags', image.image_detail.map((d) => d.full_tag + (d.current ? '' : ' (moved)'))],
    ['analysis', image.analysis_status],
    ['detail', image.analysis_status_detail.at(-1)?.detail],
    ['status', image.image_status],
    ['distro', meta ? `${meta.distro ?? ''} ${meta.distro_version ?? ''}`.trim() : undefined],
    ['arch', meta?.arch],
    ['created at', image.created_at],
    ['analyzed at', image.analyzed_at],
  ];
}

const CONTENT_TYPES = ['os', 'npm', 'gem', 'python', 'go', 'rust', 'nuget', 'composer', 'java', 'files', 'licenses', 'malware'] as const;
const PACKAGE_TYPES = ['os', 'npm', 'gem', 'python', 'go', 'rust', 'nuget', 'composer'] as const;
const SBOM_FORMATS = ['cyclonedx-json', 'spdx-json', 'native-json'] as const;

const PACKAGE_COLUMNS: Column<Schemas['PackageContent'] | Schemas['JavaPackageContent']>[] = [
  { header: 'package', value: (p) => p.package },
  { header: 'version', value: (p) => p.version },
  { header: 'type', value: (p) => p.type },
  { header: 'licenses', value: (p) => p.licenses },
  { header: 'location', value: (p) => p.location },
];

export function registerImage(program: Command, session: Session): void {
  const image = program.command('image').description('add images for analysis; read their content, findings and policy results');

  image
    .command('add')
    .description('add an image by tag (or from a docker save / OCI archive) for analysis')
    .argument('[ref]', 'image tag, e.g. registry.example.com/team/app:1.4 (with --from-archive: the tag to record)')
    .option('--wait', 'wait until the analysis finished')
    .option('--timeout <seconds>', 'with --wait, give up after this long (exit code 3)', nonNegativeInteger, 600)
    .option('--dockerfile <file>', 'the Dockerfile the image was built from')
    .option('--platform <os/arch>', 'for multi-platform images, which one to analyze')
    .option('--force', 'analyze again even if this digest was analyzed before')
    .option('--from-archive <file>', 'upload a docker save or OCI layout tarball instead of pulling')
    .action(async (ref: string | undefined, opts: { wait?: boolean; timeout: number; dockerfile?: string; platform?: string; force?: boolean; fromArchive?: string }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      let added: Image;
      if (opts.fromArchive) {
        if (opts.dockerfile || opts.platform) throw new CliError('error: --dockerfile and --platform apply to images pulled by tag, not to --from-archive');
        const bytes = readFileSync(opts.fromArchive);
        const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
        added = await call(
          client.POST('/images/archives', {
            params: { query: { ...(ref ? { tag: ref } : {}), force: opts.force ?? false } },
            // The spec types a binary body as a string; the bytes are sent as they are.
            body: bytes as unknown as string,
            bodySerializer: (b) => b,
            headers: { 'content-type': gzip ? 'application/gzip' : 'application/x-tar' },
          }),
        );
      } else {
        if (!ref) throw new CliError('error: name the image to add (a tag), or pass --from-archive FILE');
        const dockerfile = opts.dockerfile ? readFileSync(opts.dockerfile).toString('base64') : undefined;
        added = await call(
          client.POST('/images', {
            params: { query: { force: opts.force ?? false } },
            body: { source: { tag: { pull_string: ref, ...(dockerfile ? { dockerfile } : {}), ...(opts.platform ? { platform: opts.platform } : {}) } } },
          }),
        );
      }
      const final = opts.wait ? await waitForAnalysis(session, client, call, added, opts.timeout) : added;
      session.print(cmd, fieldsView(final, imageFields(final)));
    });

  image
    .command('list')
    .description('list the account\'s images')
    .option('--tag <ref>', 'only images with this tag')
    .option('--analysis-status <status>', 'only images in this analysis status', oneOf(['not_analyzed', 'analyzing', 'analyzed', 'analysis_failed'] as const))
    .action(async (opts: { tag?: string; analysisStatus?: Image['analysis_status'] }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const query = { ...(opts.tag ? { full_tag: canonicalTag(opts.tag) } : {}), ...(opts.analysisStatus ? { analysis_status: opts.analysisStatus } : {}) };
      const images = await call(client.GET('/images', { params: { query } }));
      session.print(cmd, { data: images, rows: images.items, columns: IMAGE_COLUMNS });
    });

  image
    .command('get')
    .description('show one image')
    .argument('<ref>', 'tag or digest')
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const { image: found } = await resolveImage(client, call, ref);
      session.print(cmd, fieldsView(found, imageFields(found)));
    });

  image
    .command('delete')
    .description('delete an image and everything known about it')
    .argument('<ref>', 'tag or digest')
    .option('--force', 'delete even if it is the current image of a subscribed tag')
    .action(async (ref: string, opts: { force?: boolean }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const { image: found } = await resolveImage(client, call, ref);
      const answer = await call(client.DELETE('/images/{image_digest}', { params: { path: { image_digest: found.image_digest }, query: { force: opts.force ?? false } } }));
      session.print(cmd, fieldsView(answer, [['digest', answer.image_digest], ['status', answer.status], ['detail', answer.detail]]));
    });

  image
    .command('content')
    .description(`list an image's content of one type (${CONTENT_TYPES.join(', ')})`)
    .argument('<ref>', 'tag or digest')
    .argument('<type>', 'content type', oneOf(CONTENT_TYPES))
    .action(async (ref: string, type: (typeof CONTENT_TYPES)[number], _opts: unknown, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const { image: found } = await resolveImage(client, call, ref);
      const path = { image_digest: found.image_digest };
      if (type === 'files') {
        const answer = await call(client.GET('/images/{image_digest}/content/files', { params: { path } }));
        const columns: Column<Schemas['FilesContent']>[] = [
          { header: 'file', value: (f) => f.filename },
          { header: 'type', value: (f) => f.type },
          { header: 'mode', value: (f) => f.mode },
          { header: 'size', value: (f) => f.size },
          { header: 'link', value: (f) => f.linkdest },
        ];
        session.print(cmd, { data: answer, rows: answer.content, columns });
      } else if (type === 'licenses') {
        const answer = await call(client.GET('/images/{image_digest}/content/licenses', { params: { path } }));
        const columns: Column<Schemas['LicenseReviewItem']>[] = [
          { header: 'package', value: (i) => i.package.name },
          { header: 'version', value: (i) => i.package.version },
          { header: 'type', value: (i) => i.package.type },
          { header: 'licenses', value: (i) => i.licenses.map((l) => l.license_id ?? l.license_name) },
        ];
        session.print(cmd, { data: answer, rows: answer.items, columns });
      } else if (type === 'malware') {
        const answer = await call(client.GET('/images/{image_digest}/content/malware', { params: { path } }));
        session.print(cmd, { data: answer, rows: answer.content, columns: [{ header: 'scanner', value: (s) => s.scanner }, { header: 'enabled', value: (s) => s.enabled }, { header: 'findings', value: (s) => s.findings?.length ?? 0 }] });
      } else if (type === 'java') {
        const answer = await call(client.GET('/images/{image_digest}/content/java', { params: { path } }));
        session.print(cmd, { data: answer, rows: answer.content, columns: PACKAGE_COLUMNS });
      } else {
        const answer = await call(client.GET('/images/{image_digest}/content/{content_type}', { params: { path: { ...path, content_type: type } } }));
        session.print(cmd, { data: answer, rows: answer.content, columns: PACKAGE_COLUMNS });
      }
    });

  image
    .command('vulns')
    .description('list an image\'s vulnerabilities; --fail-on makes it a gate')
    .argument('<ref>', 'tag or digest')
    .option('--type <type>', 'os, non-os or all', oneOf(['os', 'non-os', 'all'] as const), 'all')
    .option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity (unknown, negligible, low, medium, high, critical)')
    .option('--kev', 'only known-exploited findings (CISA KEV), for the list and for --fail-on')
    .action(async (ref: string, opts: { type: 'os' | 'non-os' | 'all'; failOn?: string; kev?: boolean }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const { image: found } = await resolveImage(client, call, ref);
      const answer = await call(client.GET('/images/{image_digest}/vuln/{vuln_type}', { params: { path: { image_digest: found.image_digest, vuln_type: opts.type } } }));
      showFindings(session, cmd, answer, opts);
    });

  image
    .command('check')
    .description('evaluate the active (or a named) policy for an image tag')
    .argument('<ref>', 'tag or digest')
    .option('--policy <id>', 'evaluate this policy instead of the active one')
    .option('--tag <ref>', 'with a digest, the tag to evaluate as (default: the image\'s current tag)')
    .option('--detail', 'list the findings')
    .option('--fail-based-on-results', 'exit 1 when the evaluation fails')
    .action(async (ref: string, opts: { policy?: string; tag?: string; detail?: boolean; failBasedOnResults?: boolean }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const resolved = await resolveImage(client, call, ref);
      const tag = evaluationTag(resolved, opts.tag);
      const answer = await call(
        client.GET('/images/{image_digest}/check', {
          params: { path: { image_digest: resolved.image.image_digest }, query: { tag, ...(opts.policy ? { policy_id: opts.policy } : {}), detail: true } },
        }),
      );
      const result = answer.evaluations[0];
      if (!result) throw new CliError(`error: the API answered no evaluation for ${tag}`);
      if (opts.detail) {
        const columns: Column<Schemas['PolicyEvaluationFinding']>[] = [
          { header: 'gate', value: (f) => f.gate },
          { header: 'trigger', value: (f) => f.trigger },
          { header: 'action', value: (f) => (f.allowlisted ? `${f.action} (allowlisted)` : f.action), style: statusStyle },
          { header: 'trigger id', value: (f) => f.trigger_id },
          { header: 'message', value: (f) => f.message },
        ];
        session.print(cmd, { data: answer, rows: result.details?.findings ?? [], columns });
      } else {
        session.print(
          cmd,
          fieldsView(answer, [
            ['digest', answer.image_digest],
            ['tag', answer.evaluated_tag],
            ['policy', answer.policy_id],
            ['status', result.status],
            ['final action', result.final_action],
            ['reason', result.final_action_reason],
            ['findings', result.number_of_findings],
            ['evaluated at', result.evaluation_time],
          ]),
        );
      }
      if (result.status === 'fail') {
        session.note(`policy evaluation of ${tag}: fail (${result.final_action})`);
        if (opts.failBasedOnResults) session.fail(EXIT.failed);
      }
    });

  image
    .command('sbom')
    .description('print the image\'s SBOM as the API serves it')
    .argument('<ref>', 'tag or digest')
    .requiredOption('--format <format>', SBOM_FORMATS.join(', '), oneOf(SBOM_FORMATS))
    .action(async (ref: string, opts: { format: (typeof SBOM_FORMATS)[number] }, cmd: Command) => {
      const { client, call } = await session.api(cmd);
      const { image: found } = await resolveImage(client, call, ref);
      const params = { path: { image_digest: found.image_digest } };
      // parseAs text: the document is printed byte for byte as served, whatever -o says.
      const text =
        opts.format === 'cyclonedx-json'
          ? await call(client.GET('/images/{image_digest}/sboms/cyclonedx-json', { params, parseAs: 'text' }))
          : opts.format === 'spdx-json'
            ? await call(client.GET('/images/{image_digest}/sboms/spdx-json', { params, parseAs: 'text' }))
            : await call(client.GET('/images/{image_digest}/sboms/native-json', { params, parseAs: 'text' }));
      session.write(text);
    });
}
