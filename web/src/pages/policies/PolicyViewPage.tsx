/** One policy: its rules, allowlists and mappings; edit, the dry run, and activation. */
import { Alert, Anchor, Badge, Button, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useLocation, useParams } from 'react-router-dom';
import { data } from '../../api/client';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { useApi } from '../../components/SessionProvider';
import { useAsyncData } from '../../components/useAsyncData';
import { CopyPolicyForm } from './CopyPolicyForm';
import { DryRunPanel } from './DryRunPanel';
import { PolicyContents } from './PolicyContents';

export function PolicyViewPage() {
  const { policyId = '' } = useParams();
  const { api } = useApi();
  const location = useLocation();
  const [notice, setNotice] = useState<string | undefined>((location.state as { notice?: string } | null)?.notice);
  const [failure, setFailure] = useState<unknown>();
  const [activating, setActivating] = useState(false);
  const loaded = useAsyncData(
    () => data(api.rest.GET('/policies/{policy_id}', { params: { path: { policy_id: policyId }, query: { detail: true } } })),
    [api, policyId],
  );

  async function activate() {
    setActivating(true);
    setFailure(undefined);
    try {
      await data(api.rest.PUT('/policies/{policy_id}', { params: { path: { policy_id: policyId }, query: { active: true } } }));
      setNotice('Activated: this is now the account’s active policy.');
      loaded.reload();
    } catch (error) {
      setFailure(error);
    } finally {
      setActivating(false);
    }
  }

  if (loaded.error) return <ApiErrorAlert error={loaded.error} title="The policy could not be loaded" />;
  const record = loaded.data;
  if (!record) return <Loader aria-label="Loading the policy" />;
  const editLink = `/policies/${encodeURIComponent(policyId)}/edit`;
  return (
    <Stack>
      <Anchor component={Link} to="/policies">
        All policies
      </Anchor>
      <Group>
        <Title order={1}>{record.name}</Title>
        {record.active ? (
          <Badge color="green" variant="light">
            Active
          </Badge>
        ) : (
          <Badge color="gray" variant="light">
            Inactive
          </Badge>
        )}
      </Group>
      <Text size="sm">
        Id {record.policy_id} · version {record.policy?.version} · last updated {record.last_updated ?? '—'}
      </Text>
      {record.description && <Text>{record.description}</Text>}
      {notice && (
        <Alert color="green" role="status" withCloseButton closeButtonLabel="Dismiss" onClose={() => setNotice(undefined)}>
          {notice}
        </Alert>
      )}
      <ApiErrorAlert error={failure} title="Activation failed" />
      <Group>
        <Button component={Link} to={editLink}>
          Edit
        </Button>
        {!record.active && (
          <Button variant="outline" onClick={() => void activate()} loading={activating}>
            Activate
          </Button>
        )}
      </Group>
      {record.policy && <PolicyContents policy={record.policy} />}
      {record.policy && <CopyPolicyForm policy={record.policy} />}
      {record.policy && !record.active && <DryRunPanel policy={record.policy} />}
    </Stack>
  );
}
