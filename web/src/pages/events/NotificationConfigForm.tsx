/**
 * A notification configuration's fields for its kind. Secrets (passwords, signing secrets) are write-only: the
 * form starts them empty and sends them only when typed, so an edit keeps the stored ones.
 */
import { Button, Checkbox, Group, NumberInput, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { Configuration, Kind } from './notificationApi';

const URL_HELP: Record<Exclude<Kind, 'smtp'>, string> = {
  webhook: 'The http(s) URL notifications are POSTed to.',
  slack: 'The Slack incoming-webhook URL.',
  teams: 'The Microsoft Teams incoming-webhook or Workflows URL.',
};

interface NotificationConfigFormProps {
  kind: Kind;
  initial?: Configuration;
  submitLabel: string;
  onSubmit(config: Configuration): Promise<void>;
}

/** Only what the user filled in: empty optional text is left out rather than sent as ''. */
function withoutEmpty(config: Configuration): Configuration {
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== '' && v !== undefined)) as Configuration;
}

export function NotificationConfigForm({ kind, initial = {}, submitLabel, onSubmit }: NotificationConfigFormProps) {
  const editing = initial.uuid !== undefined;
  const [config, setConfig] = useState<Configuration>({
    description: initial.description ?? '',
    verify_tls: initial.verify_tls ?? true,
    timeout_seconds: initial.timeout_seconds ?? 10,
    // A stored URL comes back masked (scheme, host, /***): an edit must type it again to change it.
    url: editing ? '' : (initial.url ?? ''),
    username: initial.username ?? '',
    host: initial.host ?? '',
    port: initial.port ?? 25,
    from: initial.from ?? '',
    to: initial.to ?? '',
    use_tls: initial.use_tls ?? true,
  });
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof Configuration>(name: K, value: Configuration[K]) => setConfig((c) => ({ ...c, [name]: value }));
  const text = (name: 'description' | 'url' | 'username' | 'password' | 'signing_secret' | 'host' | 'from' | 'to') => ({
    value: String(config[name] ?? ''),
    onChange: (e: { currentTarget: HTMLInputElement }) => set(name, e.currentTarget.value),
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      const common = { description: config.description, verify_tls: config.verify_tls, timeout_seconds: config.timeout_seconds };
      const fields =
        kind === 'smtp'
          ? { host: config.host, port: config.port, from: config.from, to: config.to, use_tls: config.use_tls, username: config.username, password: config.password }
          : kind === 'webhook'
            ? { url: config.url, username: config.username, password: config.password, signing_secret: config.signing_secret }
            : { url: config.url };
      await onSubmit(withoutEmpty({ ...common, ...fields }));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} aria-label={`${submitLabel} form`}>
      <Stack gap="sm" maw={640}>
        <TextInput label="Description" description="A name for people" {...text('description')} />
        {kind !== 'smtp' && (
          <TextInput
            label="URL"
            required
            description={editing ? `${URL_HELP[kind]} The stored one is shown masked (${initial.url ?? '—'}): type it again.` : URL_HELP[kind]}
            {...text('url')}
          />
        )}
        {kind === 'smtp' && (
          <>
            <Group grow>
              <TextInput label="SMTP host" required {...text('host')} />
              <NumberInput label="Port" required min={1} max={65535} value={config.port} onChange={(v) => set('port', Number(v) || undefined)} />
            </Group>
            <TextInput label="From address" required {...text('from')} />
            <TextInput label="To addresses" description="Comma-separated" required {...text('to')} />
            <Checkbox label="Use TLS" checked={config.use_tls ?? true} onChange={(e) => set('use_tls', e.currentTarget.checked)} />
          </>
        )}
        {(kind === 'webhook' || kind === 'smtp') && (
          <Group grow>
            <TextInput label="User name" {...text('username')} />
            <PasswordInput label="Password" description={editing ? 'Leave empty to keep the stored one' : undefined} {...text('password')} />
          </Group>
        )}
        {kind === 'webhook' && (
          <PasswordInput
            label="Signing secret"
            description={editing ? 'Type a new one to rotate it; empty keeps the stored one' : 'At least 16 characters; empty lets the service generate one'}
            {...text('signing_secret')}
          />
        )}
        <Group>
          <Checkbox label="Verify TLS certificates" checked={config.verify_tls ?? true} onChange={(e) => set('verify_tls', e.currentTarget.checked)} />
          <NumberInput label="Timeout (seconds)" min={1} max={120} value={config.timeout_seconds} onChange={(v) => set('timeout_seconds', Number(v) || undefined)} w={160} />
        </Group>
        <Button type="submit" loading={busy} style={{ alignSelf: 'flex-start' }}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
