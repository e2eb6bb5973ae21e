/** Setting a user's password (administrators, or whoever may update the account's users). */
import { Button, Group, PasswordInput, Stack } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { data } from '../../api/client';
import { Dialog } from '../../components/Dialog';
import { useApi } from '../../components/SessionProvider';
import { ErrorAlert, useAction } from './shared';

export function SetPasswordModal({ username, account, onClose, onDone }: { username: string; account: string; onClose(): void; onDone(): void }) {
  const { api } = useApi();
  const [password, setPassword] = useState('');
  const save = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const stored = await save.run(() =>
      data(
        api.rest.POST('/accounts/{account_name}/users/{username}/credentials', {
          params: { path: { account_name: account, username } },
          body: { type: 'password', value: password },
        }),
      ),
    );
    if (stored) onDone();
  }

  return (
    <Dialog onClose={onClose} title={`Set the password of ${username}`}>
      <form onSubmit={submit}>
        <Stack>
          <ErrorAlert title="Could not set the password" error={save.error} />
          <PasswordInput label="New password" description="At least 8 characters." autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.busy}>
              Set password
            </Button>
          </Group>
        </Stack>
      </form>
    </Dialog>
  );
}
