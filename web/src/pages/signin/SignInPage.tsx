/** Sign-in with a username and password (OAuth password grant), with an API key, or through single sign-on. */
import { Alert, Button, Center, Paper, PasswordInput, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { signInWithApiKey, signInWithPassword } from '../../api/auth';
import { describeError } from '../../api/errors';
import { useSession } from '../../components/SessionProvider';
import type { Session } from '../../session';
import { SsoSignIn } from './SsoSignIn';

/** `ssoError`: why the single sign-on login the page was opened with failed. */
export function SignInPage({ ssoError = null }: { ssoError?: string | null }) {
  const { signIn, endedBecause } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<string | null>(ssoError);
  const [busy, setBusy] = useState(false);

  async function attempt(event: FormEvent, open: () => Promise<Session>) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      signIn(await open());
    } catch (failure) {
      setError(describeError(failure));
      setBusy(false);
    }
  }

  return (
    <Center component="main" mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={420}>
        <Stack>
          <Title order={1}>Sign in to Vigil</Title>
          {endedBecause && !error && (
            <Alert color="yellow" role="status">
              {endedBecause}
            </Alert>
          )}
          {error && (
            <Alert color="red" role="alert" title="Sign-in failed">
              {error}
            </Alert>
          )}
          <Tabs defaultValue="password">
            <Tabs.List grow>
              <Tabs.Tab value="password">Username and password</Tabs.Tab>
              <Tabs.Tab value="api-key">API key</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="password" pt="md">
              <form onSubmit={(e) => attempt(e, () => signInWithPassword(username.trim(), password))}>
                <Stack>
                  <TextInput label="Username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.currentTarget.value)} />
                  <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
                  <Button type="submit" loading={busy}>
                    Sign in
                  </Button>
                </Stack>
              </form>
            </Tabs.Panel>
            <Tabs.Panel value="api-key" pt="md">
              <form onSubmit={(e) => attempt(e, () => signInWithApiKey(apiKey))}>
                <Stack>
                  <PasswordInput label="API key" autoComplete="off" required value={apiKey} onChange={(e) => setApiKey(e.currentTarget.value)} />
                  <Text size="sm" c="dimmed">
                    An API key signs in as the user who created it.
                  </Text>
                  <Button type="submit" loading={busy}>
                    Sign in with API key
                  </Button>
                </Stack>
              </form>
            </Tabs.Panel>
          </Tabs>
          <SsoSignIn />
        </Stack>
      </Paper>
    </Center>
  );
}
