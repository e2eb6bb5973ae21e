/** One notification configuration: its status, a test send, editing, its event selectors and its deliveries. */
import { Alert, Anchor, Badge, Button, Code, Group, Loader, Select, Stack, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { Link, useLocation, useParams } from 'react-router-dom';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { useApi } from '../../components/SessionProvider';
import { useAsyncData } from '../../components/useAsyncData';
import { DeliveriesPanel } from './DeliveriesPanel';
import { NotificationConfigForm } from './NotificationConfigForm';
import { isKind, KIND_LABEL, notificationApi, type Configuration, type TestType } from './notificationApi';
import { SelectorsPanel } from './SelectorsPanel';

const TEST_TYPES: TestType[] = ['tag_update', 'analysis_update', 'vuln_update', 'policy_eval'];
const STATUS_COLOR = { healthy: 'green', unhealthy: 'red', unknown: 'gray' } as const;

export function NotificationConfigPage() {
  const { kind: kindParam, uuid = '' } = useParams();
  const { api } = useApi();
  const location = useLocation();
  const signingSecret = (location.state as { signingSecret?: string } | null)?.signingSecret;
  const kind = isKind(kindParam) ? kindParam : 'webhook';
  // One object per configuration: the panels reload when it changes.
  const calls = useMemo(() => notificationApi(api.rest, kind), [api, kind]);
  const config = useAsyncData(async () => (await calls.get(uuid)) as Configuration, [calls, uuid]);
  const status = useAsyncData(() => calls.status(uuid), [calls, uuid]);
  const [testType, setTestType] = useState<TestType>('tag_update');
  const [testResult, setTestResult] = useState<{ status?: string; response?: string }>();
  const [actionError, setActionError] = useState<unknown>();
  const [testing, setTesting] = useState(false);
  const [saved, setSaved] = useState(false);

  if (!isKind(kindParam)) return <Alert color="red" role="alert">Unknown notification kind “{kindParam}”.</Alert>;

  async function sendTest() {
    setTesting(true);
    setActionError(undefined);
    setTestResult(undefined);
    try {
      setTestResult(await calls.test(uuid, testType));
      status.reload();
    } catch (error) {
      setActionError(error);
    } finally {
      setTesting(false);
    }
  }

  async function update(changed: Configuration) {
    setActionError(undefined);
    setSaved(false);
    try {
      await calls.update(uuid, changed);
      setSaved(true);
      config.reload();
    } catch (error) {
      setActionError(error);
    }
  }

  if (config.error) return <ApiErrorAlert error={config.error} title="The configuration could not be loaded" />;
  if (!config.data) return <Loader aria-label="Loading the configuration" />;
  const target = kind === 'smtp' ? `${config.data.to} via ${config.data.host}:${config.data.port}` : config.data.url;
  return (
    <Stack>
      <Anchor component={Link} to="/events/notifications">
        All notification configurations
      </Anchor>
      <Title order={1}>
        {KIND_LABEL[kind]}: {config.data.description || uuid}
      </Title>
      <Group>
        <Text>Target {target}</Text>
        {status.data && (
          <Badge color={STATUS_COLOR[status.data.status ?? 'unknown']} variant="light">
            {status.data.status ?? 'unknown'}
          </Badge>
        )}
        {status.data?.last_error && <Text size="sm">Last error: {status.data.last_error}</Text>}
      </Group>
      <ApiErrorAlert error={status.error} title="The status could not be loaded" />
      {signingSecret && (
        <Alert color="blue" title="Signing secret (shown this once)">
          Receivers check the <Code>X-Vigil-Signature</Code> header with: <Code>{signingSecret}</Code>
        </Alert>
      )}
      <ApiErrorAlert error={actionError} />
      <Title order={2}>Test send</Title>
      <Group align="flex-end">
        <Select label="Sample notification" data={TEST_TYPES} value={testType} onChange={(v) => v && setTestType(v as TestType)} allowDeselect={false} />
        <Button onClick={() => void sendTest()} loading={testing}>
          Send a test
        </Button>
      </Group>
      {testResult && (
        <Alert color={testResult.status === 'success' ? 'green' : 'red'} title={`Test send: ${testResult.status}`} role="status">
          Receiver answered: {testResult.response}
        </Alert>
      )}
      <SelectorsPanel calls={calls} uuid={uuid} />
      <DeliveriesPanel calls={calls} uuid={uuid} />
      <Title order={2}>Edit</Title>
      {saved && (
        <Alert color="green" role="status">
          Saved.
        </Alert>
      )}
      <NotificationConfigForm key={config.data.last_updated} kind={kind} initial={config.data} submitLabel="Save configuration" onSubmit={update} />
    </Stack>
  );
}
