/** The form that adds a VEX annotation to one of the image's findings, or changes an existing one's statements. */
import { Button, Group, Select, Stack, Textarea } from '@mantine/core';
import { useState } from 'react';
import { describeError } from '../../api/errors';
import { ErrorAlert } from './LoadState';
import type { Annotation, AnnotationStatus, Justification, Vulnerability } from './types';

/** Every status and justification the API takes, typed against the generated types so none is missed. */
const STATUS_LABELS: Record<AnnotationStatus, string> = {
  not_affected: 'not affected',
  affected: 'affected',
  fixed: 'fixed',
  under_investigation: 'under investigation',
};
const JUSTIFICATION_LABELS: Record<Justification, string> = {
  component_not_present: 'component not present',
  vulnerable_code_not_present: 'vulnerable code not present',
  vulnerable_code_not_in_execute_path: 'vulnerable code not in execute path',
  vulnerable_code_cannot_be_controlled_by_adversary: 'vulnerable code cannot be controlled by adversary',
  inline_mitigations_already_exist: 'inline mitigations already exist',
  fix_not_planned: 'fix not planned',
};
const choices = (labels: Record<string, string>) => Object.entries(labels).map(([value, text]) => ({ value, label: text }));

export interface AnnotationDraft {
  /** The finding annotated (a key of `findingKey`); fixed when changing an annotation. */
  finding: string | null;
  status: AnnotationStatus;
  justification: Justification | null;
  impactStatement: string;
  statusNotes: string;
}

export const findingKey = (v: { vuln: string; package_name: string; package_version: string; package_type: string }) =>
  `${v.vuln}|${v.package_name}|${v.package_version}|${v.package_type}`;

export function draftOf(annotation: Annotation): AnnotationDraft {
  const a = annotation.annotation;
  const p = annotation.package_identifier;
  return {
    finding: `${a.vulnerability_id}|${p?.name ?? ''}|${p?.version ?? ''}|${p?.type ?? ''}`,
    status: a.status,
    justification: a.justification ?? null,
    impactStatement: a.impact_statement ?? '',
    statusNotes: a.status_notes ?? '',
  };
}

interface AnnotationFormProps {
  findings: Vulnerability[];
  initial?: AnnotationDraft;
  submitLabel: string;
  onSubmit(draft: AnnotationDraft): Promise<void>;
  onCancel?(): void;
}

export function AnnotationForm({ findings, initial, submitLabel, onSubmit, onCancel }: AnnotationFormProps) {
  const [draft, setDraft] = useState<AnnotationDraft>(initial ?? { finding: null, status: 'not_affected', justification: null, impactStatement: '', statusNotes: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (change: Partial<AnnotationDraft>) => setDraft((d) => ({ ...d, ...change }));
  // A justification other than fix_not_planned only belongs to not_affected (the server refuses it otherwise).
  const changeStatus = (status: AnnotationStatus) =>
    set({ status, ...(status !== 'not_affected' && draft.justification !== 'fix_not_planned' ? { justification: null } : {}) });
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await onSubmit(draft);
      if (!initial) setDraft({ finding: null, status: 'not_affected', justification: null, impactStatement: '', statusNotes: '' });
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };
  const options = findings.map((v) => ({ value: findingKey(v), label: `${v.vuln} · ${v.package_name} ${v.package_version}` }));
  return (
    <Stack gap="sm">
      <Select label="Finding" placeholder="Pick a vulnerability of this image" data={options} value={draft.finding} onChange={(finding) => set({ finding })} searchable disabled={!!initial} />
      <Group grow align="flex-start">
        <Select label="Status" data={choices(STATUS_LABELS)} value={draft.status} onChange={(s) => s && changeStatus(s as AnnotationStatus)} allowDeselect={false} />
        <Select
          label="Justification"
          placeholder="None"
          data={choices(JUSTIFICATION_LABELS)}
          value={draft.justification}
          onChange={(j) => set({ justification: j as Justification | null })}
          clearable
        />
      </Group>
      <Textarea label="Impact statement" value={draft.impactStatement} onChange={(e) => set({ impactStatement: e.currentTarget.value })} autosize minRows={2} />
      <Textarea label="Status notes" value={draft.statusNotes} onChange={(e) => set({ statusNotes: e.currentTarget.value })} autosize minRows={1} />
      <ErrorAlert title="The server refused the annotation" message={error} />
      <Group>
        <Button onClick={() => void submit()} loading={busy} disabled={!draft.finding}>
          {submitLabel}
        </Button>
        {onCancel && (
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        )}
      </Group>
    </Stack>
  );
}
