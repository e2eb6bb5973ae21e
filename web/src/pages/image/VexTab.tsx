/**
 * VEX annotations of the image's findings (add, change, delete), the VEX exports, the SBOM downloads in each
 * format and the vulnerability report as CycloneDX.
 */
import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { type Api, data } from '../../api/client';
import { describeError } from '../../api/errors';
import { useApi } from '../../components/SessionProvider';
import { AnnotationForm, type AnnotationDraft, draftOf, findingKey } from './AnnotationForm';
import { DownloadButtons } from './DownloadButtons';
import { imageDownloads } from './downloads';
import { Dialog } from '../../components/Dialog';
import { ErrorAlert, LoadState } from './LoadState';
import type { Annotation, Vulnerability } from './types';
import { useLoad } from './useLoad';

function statements(draft: AnnotationDraft) {
  return {
    status: draft.status,
    justification: draft.justification,
    impact_statement: draft.impactStatement.trim() || null,
    status_notes: draft.statusNotes.trim() || null,
  };
}

async function loadVex(api: Api, digest: string) {
  const image_digest = digest;
  const [annotations, vulns] = await Promise.all([
    data(api.rest.GET('/images/{image_digest}/vuln-annotations', { params: { path: { image_digest } } })),
    data(api.rest.GET('/images/{image_digest}/vuln/{vuln_type}', { params: { path: { image_digest, vuln_type: 'all' }, query: { vendor_only: false } } })),
  ]);
  return { annotations: annotations.items, findings: vulns.vulnerabilities };
}

export function VexTab({ digest }: { digest: string }) {
  const { api } = useApi();
  const vex = useLoad(() => loadVex(api, digest), [api, digest]);
  const downloads = imageDownloads(digest);
  const path = { image_digest: digest };

  const add = async (draft: AnnotationDraft, findings: Vulnerability[]) => {
    const finding = findings.find((v) => findingKey(v) === draft.finding);
    if (!finding) throw new Error('Pick a finding first.');
    await data(
      api.rest.POST('/images/{image_digest}/vuln-annotations', {
        params: { path },
        body: {
          annotation: { vulnerability_id: finding.vuln, ...statements(draft) },
          package_identifier: { name: finding.package_name, version: finding.package_version, type: finding.package_type },
        },
      }),
    );
    vex.reload();
  };

  return (
    <Stack gap="lg">
      <section aria-labelledby="vex-annotations">
        <Title order={2} size="h3" id="vex-annotations" mb="sm">
          VEX annotations
        </Title>
        <LoadState loaded={vex} what="the annotations">
          {({ annotations, findings }) => (
            <Stack>
              <AnnotationTable annotations={annotations} findings={findings} digest={digest} onChanged={vex.reload} />
              <Title order={3} size="h4">
                Add an annotation
              </Title>
              <AnnotationForm findings={findings} submitLabel="Add annotation" onSubmit={(draft) => add(draft, findings)} />
            </Stack>
          )}
        </LoadState>
      </section>
      <section aria-labelledby="vex-exports">
        <Title order={2} size="h3" id="vex-exports" mb="sm">
          Exports
        </Title>
        <Stack>
          <DownloadButtons downloads={downloads.vex} />
          <DownloadButtons downloads={downloads.sboms} />
          <DownloadButtons downloads={[downloads.report]} />
        </Stack>
      </section>
    </Stack>
  );
}

function AnnotationTable({ annotations, findings, digest, onChanged }: { annotations: Annotation[]; findings: Vulnerability[]; digest: string; onChanged(): void }) {
  const { api } = useApi();
  const [editing, setEditing] = useState<Annotation | null>(null);
  const [error, setError] = useState<string | null>(null);
  const path = (a: Annotation) => ({ image_digest: digest, vuln_annotation_uuid: a.annotation.uuid ?? '' });

  const change = async (a: Annotation, draft: AnnotationDraft) => {
    await data(api.rest.PUT('/images/{image_digest}/vuln-annotations/{vuln_annotation_uuid}', { params: { path: path(a) }, body: { vulnerability_id: a.annotation.vulnerability_id, ...statements(draft) } }));
    setEditing(null);
    onChanged();
  };
  const remove = async (a: Annotation) => {
    setError(null);
    try {
      await api.rest.DELETE('/images/{image_digest}/vuln-annotations/{vuln_annotation_uuid}', { params: { path: path(a) } });
      onChanged();
    } catch (failure) {
      setError(describeError(failure));
    }
  };

  if (annotations.length === 0) return <Text>No annotations yet.</Text>;
  return (
    <>
      <ErrorAlert title="Could not delete the annotation" message={error} />
      <Table aria-labelledby="vex-annotations" striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Vulnerability</Table.Th>
            <Table.Th>Package</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Justification</Table.Th>
            <Table.Th>Impact statement</Table.Th>
            <Table.Th>Author</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {annotations.map((a) => {
            const name = `${a.annotation.vulnerability_id} ${a.package_identifier?.name ?? ''}`.trim();
            return (
              <Table.Tr key={a.annotation.uuid}>
                <Table.Td>{a.annotation.vulnerability_id}</Table.Td>
                <Table.Td>{a.package_identifier ? `${a.package_identifier.name} ${a.package_identifier.version ?? ''}` : 'every package'}</Table.Td>
                <Table.Td>{a.annotation.status.replaceAll('_', ' ')}</Table.Td>
                <Table.Td>{a.annotation.justification?.replaceAll('_', ' ') ?? '—'}</Table.Td>
                <Table.Td>{a.annotation.impact_statement ?? '—'}</Table.Td>
                <Table.Td>{a.annotation.author ?? '—'}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Button size="compact-xs" variant="default" aria-label={`Change annotation ${name}`} onClick={() => setEditing(a)}>
                      Change
                    </Button>
                    <Button size="compact-xs" color="red.9" variant="outline" aria-label={`Delete annotation ${name}`} onClick={() => void remove(a)}>
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      {editing && (
        <Dialog onClose={() => setEditing(null)} title={`Change annotation of ${editing.annotation.vulnerability_id}`}>
          <AnnotationForm findings={findings} initial={draftOf(editing)} submitLabel="Save annotation" onSubmit={(draft) => change(editing, draft)} onCancel={() => setEditing(null)} />
        </Dialog>
      )}
    </>
  );
}
