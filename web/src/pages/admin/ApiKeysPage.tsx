/** The signed-in user's API keys: list, create (the key is shown once, here), revoke. */
import { Alert, Badge, Button, Code, CopyButton, Group, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { components } from '../../../../generated/openapi-types';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { usePermissions } from './permissions';
import { type Column, ErrorAlert, formatTime, InlineForm, PagedTable, useAction, useLoad } from './shared';

type ApiKey = components['schemas']['UserApiKey'];

function CreateKeyForm({ onCreated }: { onCreated(key: ApiKey): void }) {
  const { api } = useApi();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction();

  async function submit() {
    const body = { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) };
    let created: ApiKey | undefined;
    if (await create.run(async () => (created = await data(api.rest.POST('/user/api-keys', { body }))))) {
      setName('');
      setDescription('');
      if (created) onCreated(created);
    }
  }

  return (
    <InlineForm title="Create an API key" action={create} errorTitle="Could not create the API key" submitLabel="Create key" onSubmit={submit}>
      <TextInput label="Key name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
      <TextInput label="Description (optional)" value={description} onChange={(e) => setDescription(e.currentTarget.value)} w={320} />
    </InlineForm>
  );
}

export function ApiKeysPage() {
  const { api } = useApi();
  const { can } = usePermissions();
  const keys = useLoad(() => data(api.rest.GET('/user/api-keys')), [api]);
  const revoke = useAction();
  const [created, setCreated] = useState<ApiKey | null>(null);

  const revokeKey = (key: ApiKey) =>
    revoke.run(async () => {
      await data(api.rest.PATCH('/user/api-keys/{key_name}', { params: { path: { key_name: key.name } }, body: { status: 'revoked' } }));
      keys.reload();
    });

  const columns: Column<ApiKey>[] = [
    { header: 'Name', cell: (k) => k.name },
    { header: 'Description', cell: (k) => k.description ?? '' },
    { header: 'Status', cell: (k) => <Badge color={k.status === 'active' ? 'green' : 'gray'} variant="light">{k.status}</Badge> },
    { header: 'Created', cell: (k) => formatTime(k.created_at) },
    { header: 'Expires', cell: (k) => formatTime(k.expires_at) },
    {
      header: 'Actions',
      cell: (k) =>
        k.status === 'active' && can('selfUpdateApiKey') ? (
          <Button size="xs" variant="default" color="red" disabled={revoke.busy} onClick={() => void revokeKey(k)} aria-label={`Revoke key ${k.name}`}>
            Revoke
          </Button>
        ) : null,
    },
  ];

  return (
    <Stack>
      <Title order={2}>Your API keys</Title>
      {created?.value && (
        <Alert color="green" title={`API key ${created.name} created`} role="status" withCloseButton onClose={() => setCreated(null)} closeButtonLabel="Dismiss">
          <Stack gap="xs">
            This is the only time the key is shown; copy it now.
            <Group>
              <Code aria-label="New API key" data-testid="new-api-key">
                {created.value}
              </Code>
              <CopyButton value={created.value}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="default" onClick={copy}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        </Alert>
      )}
      {can('selfCreateApiKey') && (
        <CreateKeyForm
          onCreated={(key) => {
            setCreated(key);
            keys.reload();
          }}
        />
      )}
      <ErrorAlert title="Could not list your API keys" error={keys.error} />
      <ErrorAlert title="Could not revoke the key" error={revoke.error} />
      {keys.data && <PagedTable label="Your API keys" rows={keys.data.items} columns={columns} rowKey={(k) => k.name} empty="You have no API keys." />}
    </Stack>
  );
}
