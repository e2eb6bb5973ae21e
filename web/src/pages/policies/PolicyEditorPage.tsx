/**
 * Editing a policy as a form or as JSON. Saving sends the whole document; when the server refuses it, each of its
 * problems is shown at the field it names (form) and all of them are listed above, with their paths (both modes).
 */
import { Alert, Anchor, Button, Group, List, Loader, Stack, Tabs, Textarea, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { data } from '../../api/client';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { useApi } from '../../components/SessionProvider';
import { useAsyncData } from '../../components/useAsyncData';
import { DryRunPanel } from './DryRunPanel';
import { PolicyForm } from './PolicyForm';
import { policyProblems, type Policy, type PolicyProblem } from './policyTypes';

export function PolicyEditorPage() {
  const { policyId = '' } = useParams();
  const { api } = useApi();
  const navigate = useNavigate();
  const loaded = useAsyncData(
    async () => ({
      record: await data(api.rest.GET('/policies/{policy_id}', { params: { path: { policy_id: policyId }, query: { detail: true } } })),
      gates: await data(api.rest.GET('/system/policy-spec')),
    }),
    [api, policyId],
  );
  const [draft, setDraft] = useState<Policy>();
  const [mode, setMode] = useState<string>('form');
  const [json, setJson] = useState('');
  const [jsonError, setJsonError] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const [problems, setProblems] = useState<PolicyProblem[]>([]);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (loaded.data?.record.policy) setDraft(loaded.data.record.policy);
  }, [loaded.data]);

  /** The document being edited, from the JSON text in JSON mode (undefined when that text does not parse). */
  function current(): Policy | undefined {
    if (mode !== 'json') return draft;
    try {
      const parsed = JSON.parse(json) as Policy;
      setJsonError(undefined);
      return parsed;
    } catch (error) {
      setJsonError(`The JSON does not parse: ${(error as Error).message}`);
      return undefined;
    }
  }

  function switchMode(next: string | null) {
    if (!next || next === mode) return;
    if (next === 'json') {
      setJson(JSON.stringify(draft, null, 2));
      setMode(next);
      return;
    }
    const parsed = current();
    if (!parsed) return;
    setDraft(parsed);
    setMode(next);
  }

  function showFailure(error: unknown) {
    setFailure(error);
    setProblems(policyProblems(error));
  }

  async function save() {
    const policy = current();
    if (!policy) return;
    setSaving(true);
    setFailure(undefined);
    setProblems([]);
    try {
      await data(api.rest.PUT('/policies/{policy_id}', { params: { path: { policy_id: policyId } }, body: { policy } }));
      navigate(`/policies/${encodeURIComponent(policyId)}`, { state: { notice: 'Saved.' } });
    } catch (error) {
      showFailure(error);
    } finally {
      setSaving(false);
    }
  }

  if (loaded.error) return <ApiErrorAlert error={loaded.error} title="The policy could not be loaded" />;
  if (!loaded.data || !draft) return <Loader aria-label="Loading the policy" />;
  return (
    <Stack>
      <Anchor component={Link} to={`/policies/${encodeURIComponent(policyId)}`}>
        Back to the policy
      </Anchor>
      <Title order={1}>Edit policy {loaded.data.record.name}</Title>
      {failure !== undefined &&
        (problems.length > 0 ? (
          <Alert color="red" title={`The server refused the policy: ${problems.length} problem${problems.length === 1 ? '' : 's'}`} role="alert">
            <List size="sm">
              {problems.map((p, i) => (
                <List.Item key={i}>
                  {p.path ? <code>{p.path}</code> : null} {p.message}
                </List.Item>
              ))}
            </List>
          </Alert>
        ) : (
          <ApiErrorAlert error={failure} title="Saving failed" />
        ))}
      <Tabs value={mode} onChange={switchMode}>
        <Tabs.List>
          <Tabs.Tab value="form">Form</Tabs.Tab>
          <Tabs.Tab value="json">JSON</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="form" pt="md">
          {mode === 'form' && <PolicyForm policy={draft} gates={loaded.data.gates} problems={problems} onChange={setDraft} />}
        </Tabs.Panel>
        <Tabs.Panel value="json" pt="md">
          {mode === 'json' && (
            <Textarea
              label="Policy document (JSON)"
              autosize
              minRows={12}
              maxRows={40}
              value={json}
              error={jsonError}
              styles={{ input: { fontFamily: 'monospace' } }}
              onChange={(e) => setJson(e.currentTarget.value)}
            />
          )}
        </Tabs.Panel>
      </Tabs>
      <Group>
        <Button onClick={() => void save()} loading={saving}>
          Save
        </Button>
        <Button variant="default" component={Link} to={`/policies/${encodeURIComponent(policyId)}`}>
          Cancel
        </Button>
      </Group>
      {mode === 'form' && <DryRunPanel policy={draft} onProblems={showFailure} />}
    </Stack>
  );
}
