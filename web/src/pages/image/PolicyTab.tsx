/**
 * The policy evaluation of the image for one of its tags: the final action and every finding with its gate,
 * trigger, message and action, and "Allowlist this" on a finding, after which the image is checked again.
 */
import { Alert, Button, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { data } from '../../api/client';
import { describeError } from '../../api/errors';
import { useApi } from '../../components/SessionProvider';
import { allowlistFinding } from './allowlist';
import { Tone } from './Tone';
import { Dialog } from '../../components/Dialog';
import { ErrorAlert, LoadState } from './LoadState';
import type { Evaluation, Finding, Image } from './types';
import { useLoad } from './useLoad';
import { VirtualTable } from './VirtualTable';

const ACTION_COLOR = { stop: 'red', warn: 'yellow', go: 'green' } as const;
/** Sorted most severe first. */
const ACTION_ORDER: Finding['action'][] = ['stop', 'warn', 'go'];

export function PolicyTab({ image }: { image: Image }) {
  const { api } = useApi();
  const tags = useMemo(() => [...new Set(image.image_detail.map((d) => d.full_tag))], [image]);
  const [tag, setTag] = useState<string | null>(image.image_detail.find((d) => d.current)?.full_tag ?? tags[0] ?? null);
  const check = useLoad(async () => {
    if (!tag) return null;
    return data(api.rest.GET('/images/{image_digest}/check', { params: { path: { image_digest: image.image_digest }, query: { tag } } }));
  }, [api, image.image_digest, tag]);

  if (!tag) return <Text>The image has no tag to evaluate the policy for.</Text>;
  return (
    <Stack>
      <Select label="Evaluate for tag" data={tags} value={tag} onChange={setTag} allowDeselect={false} w={480} />
      <LoadState loaded={{ ...check, data: check.loading ? null : check.data }} what="the policy evaluation">
        {(answer) =>
          answer?.evaluations[0] ? <EvaluationView policyId={answer.policy_id} evaluation={answer.evaluations[0]} onChanged={check.reload} /> : <Text>No evaluation.</Text>
        }
      </LoadState>
    </Stack>
  );
}

function EvaluationView({ policyId, evaluation, onChanged }: { policyId: string; evaluation: Evaluation; onChanged(): void }) {
  const { api } = useApi();
  const [chosen, setChosen] = useState<Finding | null>(null);
  const findings = evaluation.details?.findings ?? [];
  const column = createColumnHelper<Finding>();
  const columns = [
    column.accessor('gate', { header: 'Gate' }),
    column.accessor('trigger', { header: 'Trigger' }),
    column.accessor('trigger_id', { header: 'Trigger id' }),
    column.accessor('message', { header: 'Message', size: 420, enableSorting: false }),
    column.accessor('action', {
      header: 'Action',
      sortingFn: (a, b) => ACTION_ORDER.indexOf(a.original.action) - ACTION_ORDER.indexOf(b.original.action),
      cell: (c) => (
        <Tone color={ACTION_COLOR[c.getValue()]}>
          {c.row.original.allowlisted ? `${c.getValue()} (allowlisted)` : c.getValue()}
        </Tone>
      ),
    }),
    column.display({
      id: 'allowlist',
      header: 'Allowlist',
      cell: (c) =>
        c.row.original.allowlisted ? (
          <Text size="sm">by {c.row.original.allowlist_match?.name ?? 'an allowlist'}</Text>
        ) : (
          <Button size="compact-xs" variant="default" aria-label={`Allowlist this: ${c.row.original.trigger_id}`} onClick={() => setChosen(c.row.original)}>
            Allowlist this
          </Button>
        ),
    }),
  ];

  return (
    <Stack>
      <Group>
        <Title order={2} size="h3">
          Result
        </Title>
        <Tone size="lg" color={evaluation.status === 'pass' ? 'green' : 'red'} data-testid="policy-status">
          {evaluation.status}
        </Tone>
        <Text>
          Final action <strong>{evaluation.final_action}</strong> ({evaluation.final_action_reason.replace('_', ' ')}) under policy {policyId}, {evaluation.number_of_findings}{' '}
          findings, evaluated {new Date(evaluation.evaluation_time).toLocaleString()}.
        </Text>
      </Group>
      {evaluation.evaluation_problems.map((p, i) => (
        <Alert key={i} color="orange" title="Evaluation problem">
          {JSON.stringify(p)}
        </Alert>
      ))}
      <VirtualTable data={findings} columns={columns} label="Policy findings" initialSorting={[{ id: 'action', desc: false }]} getRowId={(f) => `${f.rule_id}:${f.trigger_id}`} />
      {chosen && <AllowlistDialog policyId={policyId} evaluation={evaluation} finding={chosen} onClose={() => setChosen(null)} onDone={() => (setChosen(null), onChanged())} api={api} />}
    </Stack>
  );
}

function AllowlistDialog(props: { api: ReturnType<typeof useApi>['api']; policyId: string; evaluation: Evaluation; finding: Finding; onClose(): void; onDone(): void }) {
  const { finding } = props;
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await allowlistFinding(props.api, props.policyId, props.evaluation, finding, reason.trim());
      props.onDone();
    } catch (failure) {
      setError(describeError(failure));
      setBusy(false);
    }
  };
  return (
    <Dialog onClose={props.onClose} title={`Allowlist ${finding.trigger_id}`}>
      <Stack>
        <Text size="sm">
          Adds gate <strong>{finding.gate}</strong>, trigger id <strong>{finding.trigger_id}</strong> to the allowlist of policy {props.policyId}. Every image
          this policy maps to the same rules stops failing on it.
        </Text>
        <TextInput label="Reason (kept as the item's description)" value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
        <ErrorAlert title="Could not change the policy" message={error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button loading={busy} onClick={() => void submit()}>
            Add to allowlist
          </Button>
        </Group>
      </Stack>
    </Dialog>
  );
}
