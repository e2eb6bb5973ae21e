/** Accounts (administrators only): the list with each account's state, creating one, enabling and disabling. */
import { Anchor, Badge, Button, Select, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { components } from '../../../../generated/openapi-types';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { usePermissions } from './permissions';
import { type Column, ErrorAlert, formatTime, InlineForm, PagedTable, useAction, useLoad } from './shared';

type Account = components['schemas']['Account'];

function CreateAccountForm({ onCreated }: { onCreated(): void }) {
  const { api } = useApi();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [type, setType] = useState<'user' | 'service'>('user');
  const create = useAction();

  async function submit() {
    const body = { name: name.trim(), type, ...(email.trim() ? { email: email.trim() } : {}) };
    if (await create.run(() => data(api.rest.POST('/accounts', { body })))) {
      setName('');
      setEmail('');
      onCreated();
    }
  }

  return (
    <InlineForm title="Create an account" action={create} errorTitle="Could not create the account" submitLabel="Create account" onSubmit={submit}>
      <TextInput label="Account name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
      <TextInput label="E-mail (optional)" type="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
      <Select label="Type" data={['user', 'service']} value={type} allowDeselect={false} onChange={(v) => v && setType(v as 'user' | 'service')} w={140} />
    </InlineForm>
  );
}

export function AccountsPage() {
  const { api } = useApi();
  const { can } = usePermissions();
  const accounts = useLoad(() => data(api.rest.GET('/accounts')), [api]);
  const toggle = useAction();

  const setState = (account: Account, state: 'enabled' | 'disabled') =>
    toggle.run(async () => {
      await data(api.rest.PUT('/accounts/{account_name}/state', { params: { path: { account_name: account.name } }, body: { state } }));
      accounts.reload();
    });

  const columns: Column<Account>[] = [
    {
      header: 'Account',
      cell: (a) => (
        <Anchor component={Link} to={`/admin/accounts/${encodeURIComponent(a.name)}`} aria-label={`Users of ${a.name}`}>
          {a.name}
        </Anchor>
      ),
    },
    { header: 'Type', cell: (a) => a.type },
    { header: 'E-mail', cell: (a) => a.email ?? '—' },
    { header: 'State', cell: (a) => <Badge color={a.state === 'enabled' ? 'green' : 'gray'} variant="light">{a.state}</Badge> },
    { header: 'Created', cell: (a) => formatTime(a.created_at) },
    {
      header: 'Actions',
      cell: (a) =>
        // The admin account cannot be disabled, and one being deleted cannot change state.
        a.type !== 'admin' && a.state !== 'deleting' && can('updateAccount') ? (
          <Button
            size="xs"
            variant="default"
            disabled={toggle.busy}
            onClick={() => void setState(a, a.state === 'enabled' ? 'disabled' : 'enabled')}
            aria-label={`${a.state === 'enabled' ? 'Disable' : 'Enable'} account ${a.name}`}
          >
            {a.state === 'enabled' ? 'Disable' : 'Enable'}
          </Button>
        ) : null,
    },
  ];

  return (
    <Stack>
      <Title order={2}>Accounts</Title>
      {can('createAccount') && <CreateAccountForm onCreated={accounts.reload} />}
      <ErrorAlert title="Could not list the accounts" error={accounts.error} />
      <ErrorAlert title="Could not change the account's state" error={toggle.error} />
      {accounts.data && <PagedTable label="Accounts" rows={accounts.data} columns={columns} rowKey={(a) => a.name} empty="No accounts." />}
    </Stack>
  );
}
