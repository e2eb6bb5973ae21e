/** Copying a policy under a new id (inactive), to change it and try it in a dry run without touching the original. */
import { Button, Group, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { data } from '../../api/client';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { useApi } from '../../components/SessionProvider';
import type { Policy } from './policyTypes';

export function CopyPolicyForm({ policy }: { policy: Policy }) {
  const { api } = useApi();
  const navigate = useNavigate();
  const [id, setId] = useState(`${policy.id}-copy`);
  const [error, setError] = useState<unknown>();

  async function copy(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await data(api.rest.POST('/policies', { body: { ...policy, id, name: `Copy of ${policy.name}` } }));
      navigate(`/policies/${encodeURIComponent(id)}/edit`);
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <form onSubmit={(e) => void copy(e)} aria-label="Copy this policy">
      <Group align="flex-end">
        <TextInput label="Id of the copy" value={id} onChange={(e) => setId(e.currentTarget.value)} required />
        <Button type="submit" variant="default">
          Copy as a new policy
        </Button>
      </Group>
      <ApiErrorAlert error={error} title="The copy was not made" />
    </form>
  );
}
