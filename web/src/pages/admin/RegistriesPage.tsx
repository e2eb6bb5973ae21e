/** Registry credentials of the account: list (passwords are never returned), add (optionally validated), delete. */
import { Badge, Button, Checkbox, PasswordInput, Select, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { components } from '../../../../generated/openapi-types';
import { data } from '../../api/client';
import { useApi } from '../../components/SessionProvider';
import { usePermissions } from './permissions';
import { type Column, ErrorAlert, formatTime, InlineForm, PagedTable, useAction, useLoad } from './shared';

type Registry = components['schemas']['RegistryConfiguration'];
type RegistryRequest = components['schemas']['RegistryConfigurationRequest'];

const EMPTY = { registry: '', name: '', user: '', pass: '', type: 'docker_v2' as const, verify: true, validate: false };

function AddRegistryForm({ onAdded }: { onAdded(): void }) {
  const { api } = useApi();
  const [form, setForm] = useState<{ registry: string; name: string; user: string; pass: string; type: 'docker_v2' | 'awsecr'; verify: boolean; validate: boolean }>(EMPTY);
  const add = useAction();
  const set = (patch: Partial<typeof form>) => setForm((f) => ({ ...f, ...patch }));

  async function submit() {
    const body: RegistryRequest = { registry: form.registry.trim(), registry_type: form.type, registry_verify: form.verify };
    if (form.name.trim()) body.registry_name = form.name.trim();
    if (form.user) body.registry_user = form.user;
    if (form.pass) body.registry_pass = form.pass;
    const added = await add.run(() => data(api.rest.POST('/registries', { body, params: { query: { validate: form.validate } } })));
    if (added) {
      setForm(EMPTY);
      onAdded();
    }
  }

  return (
    <InlineForm
      title="Add a registry"
      action={add}
      errorTitle="Could not add the registry"
      submitLabel="Add registry"
      onSubmit={submit}
      options={
        <>
          <Checkbox label="Verify TLS certificates" checked={form.verify} onChange={(e) => set({ verify: e.currentTarget.checked })} />
          <Checkbox label="Check the credentials against the registry first" checked={form.validate} onChange={(e) => set({ validate: e.currentTarget.checked })} />
        </>
      }
    >
      <TextInput label="Registry" description="host[:port], optionally /repository-prefix" required value={form.registry} onChange={(e) => set({ registry: e.currentTarget.value })} />
      <TextInput label="Name (optional)" value={form.name} onChange={(e) => set({ name: e.currentTarget.value })} />
      <TextInput label="Username" autoComplete="off" value={form.user} onChange={(e) => set({ user: e.currentTarget.value })} />
      <PasswordInput label="Password" autoComplete="new-password" value={form.pass} onChange={(e) => set({ pass: e.currentTarget.value })} w={200} />
      <Select label="Type" data={['docker_v2', 'awsecr']} value={form.type} allowDeselect={false} onChange={(v) => v && set({ type: v as 'docker_v2' | 'awsecr' })} w={130} />
    </InlineForm>
  );
}

export function RegistriesPage() {
  const { api } = useApi();
  const { can } = usePermissions();
  const registries = useLoad(() => data(api.rest.GET('/registries')), [api]);
  const remove = useAction();

  const removeRegistry = (r: Registry) =>
    remove.run(async () => {
      await api.rest.DELETE('/registries/{registry}', { params: { path: { registry: r.registry } } });
      registries.reload();
    });

  const columns: Column<Registry>[] = [
    { header: 'Registry', cell: (r) => r.registry },
    { header: 'Name', cell: (r) => r.registry_name ?? '' },
    { header: 'Username', cell: (r) => r.registry_user ?? '—' },
    { header: 'Type', cell: (r) => r.registry_type },
    { header: 'TLS', cell: (r) => <Badge color={r.registry_verify ? 'green' : 'orange'} variant="light">{r.registry_verify ? 'verified' : 'not verified'}</Badge> },
    { header: 'Updated', cell: (r) => formatTime(r.last_updated) },
    {
      header: 'Actions',
      cell: (r) =>
        can('deleteRegistry') ? (
          <Button size="xs" variant="default" color="red" disabled={remove.busy} onClick={() => void removeRegistry(r)} aria-label={`Delete registry ${r.registry}`}>
            Delete
          </Button>
        ) : null,
    },
  ];

  return (
    <Stack>
      <Title order={2}>Registries</Title>
      {can('createRegistry') && <AddRegistryForm onAdded={registries.reload} />}
      <ErrorAlert title="Could not list the registries" error={registries.error} />
      <ErrorAlert title="Could not delete the registry" error={remove.error} />
      {registries.data && <PagedTable label="Registries" rows={registries.data} columns={columns} rowKey={(r) => r.registry} empty="No registry credentials in this account." />}
    </Stack>
  );
}
