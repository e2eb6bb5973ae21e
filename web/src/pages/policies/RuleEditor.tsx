/**
 * One rule of the form editor: id, gate, trigger and action chosen from the policy spec, and a field per parameter
 * the trigger takes (plus any the rule has that the trigger does not know, so the server's complaint has a place).
 * Values are typed freely: the server is the one judge of a value, and its problems appear at the field.
 */
import { Button, Fieldset, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import type { GateSpec, PolicyRule, RuleProblems } from './policyTypes';

const ACTIONS = ['GO', 'WARN', 'STOP'];

interface RuleEditorProps {
  rule: PolicyRule;
  gates: GateSpec[];
  problems: RuleProblems;
  onChange(rule: PolicyRule): void;
  onRemove(): void;
}

/** Select options from names, keeping the current value even when the spec does not list it. */
function options(names: string[], current: string): string[] {
  return current && !names.includes(current) ? [current, ...names] : names;
}

export function RuleEditor({ rule, gates, problems, onChange, onRemove }: RuleEditorProps) {
  const gate = gates.find((g) => g.name === rule.gate.toLowerCase());
  const trigger = gate?.triggers.find((t) => t.name === rule.trigger.toLowerCase());
  const specParams = (trigger?.parameters ?? []).filter((p) => p.state !== 'eol');
  const known = new Set(specParams.flatMap((p) => [p.name, ...(p.aliases ?? [])]));
  const extraParams = rule.params.filter((p) => !known.has(p.name.toLowerCase()));
  const valueOf = (name: string, aliases: string[] = []) =>
    rule.params.find((p) => [name, ...aliases].includes(p.name.toLowerCase()))?.value ?? '';

  function setParam(name: string, value: string, aliases: string[] = []) {
    const names = [name, ...aliases];
    const at = rule.params.findIndex((p) => names.includes(p.name.toLowerCase()));
    const params = [...rule.params];
    if (at < 0) {
      if (value !== '') params.push({ name, value });
    } else if (value === '') params.splice(at, 1);
    else params[at] = { ...params[at], value };
    onChange({ ...rule, params });
  }

  function setGate(name: string | null) {
    const next = gates.find((g) => g.name === name);
    const firstTrigger = next?.triggers.find((t) => t.state !== 'eol')?.name ?? '';
    onChange({ ...rule, gate: name ?? '', trigger: firstTrigger, params: [] });
  }

  return (
    <Fieldset legend={`Rule ${rule.id}`}>
      <Stack gap="xs">
        <Group grow align="flex-start">
          <TextInput label="Rule id" value={rule.id} error={problems.id} onChange={(e) => onChange({ ...rule, id: e.currentTarget.value })} />
          <Select
            label="Gate"
            searchable
            data={options(gates.filter((g) => g.state !== 'eol').map((g) => g.name), rule.gate)}
            value={rule.gate}
            error={problems.gate}
            onChange={setGate}
          />
          <Select
            label="Trigger"
            searchable
            data={options((gate?.triggers ?? []).filter((t) => t.state !== 'eol').map((t) => t.name), rule.trigger)}
            value={rule.trigger}
            error={problems.trigger}
            onChange={(name) => onChange({ ...rule, trigger: name ?? '', params: [] })}
          />
          <Select
            label="Action"
            data={options(ACTIONS, rule.action.toUpperCase())}
            value={rule.action.toUpperCase()}
            error={problems.action}
            onChange={(action) => action && onChange({ ...rule, action: action as PolicyRule['action'] })}
          />
        </Group>
        {trigger && <Text size="sm" c="dimmed">{trigger.description}</Text>}
        <Group grow align="flex-start">
          {specParams.map((param) => (
            <TextInput
              key={param.name}
              label={param.name}
              withAsterisk={param.required}
              description={param.validator.description}
              placeholder={param.example ?? undefined}
              value={valueOf(param.name, param.aliases)}
              error={problems.params[param.name] ?? param.aliases?.map((a) => problems.params[a]).find(Boolean)}
              onChange={(e) => setParam(param.name, e.currentTarget.value, param.aliases)}
            />
          ))}
          {extraParams.map((param) => (
            <TextInput
              key={param.name}
              label={param.name}
              description="Not a parameter of this trigger"
              value={param.value}
              error={problems.params[param.name.toLowerCase()]}
              onChange={(e) => setParam(param.name, e.currentTarget.value)}
            />
          ))}
          {specParams.length === 0 && extraParams.length === 0 && <Text size="sm">This trigger takes no parameters.</Text>}
        </Group>
        {problems.other.map((message) => (
          <Text key={message} c="red.9" size="sm">
            {message}
          </Text>
        ))}
        <Group justify="flex-end">
          <Button variant="default" color="red" size="xs" onClick={onRemove}>
            Remove rule {rule.id}
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}
