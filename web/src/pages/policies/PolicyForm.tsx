/** The policy as a form: its name and description, and each rule set's rules (add, change, remove). */
import { Button, Stack, TextInput, Textarea, Title } from '@mantine/core';
import { RuleEditor } from './RuleEditor';
import { ruleProblems, type GateSpec, type Policy, type PolicyProblem, type PolicyRule } from './policyTypes';

interface PolicyFormProps {
  policy: Policy;
  gates: GateSpec[];
  problems: PolicyProblem[];
  onChange(policy: Policy): void;
}

/** A rule id the rule set does not use yet. */
function freshRuleId(rules: PolicyRule[]): string {
  const ids = new Set(rules.map((r) => r.id));
  let n = rules.length + 1;
  while (ids.has(`rule-${n}`)) n += 1;
  return `rule-${n}`;
}

export function PolicyForm({ policy, gates, problems, onChange }: PolicyFormProps) {
  const fieldProblem = (path: string) => problems.filter((p) => p.path === path).map((p) => p.message).join('; ') || undefined;

  function setRules(setIndex: number, rules: PolicyRule[]) {
    onChange({ ...policy, rule_sets: policy.rule_sets.map((set, i) => (i === setIndex ? { ...set, rules } : set)) });
  }

  function addRule(setIndex: number) {
    const rules = policy.rule_sets[setIndex].rules;
    const gate = gates.find((g) => g.state === 'active');
    const trigger = gate?.triggers.find((t) => t.state === 'active');
    setRules(setIndex, [...rules, { id: freshRuleId(rules), gate: gate?.name ?? '', trigger: trigger?.name ?? '', action: 'WARN', params: [] }]);
  }

  return (
    <Stack>
      <TextInput label="Name" value={policy.name} error={fieldProblem('name')} onChange={(e) => onChange({ ...policy, name: e.currentTarget.value })} />
      <Textarea
        label="Description"
        autosize
        minRows={1}
        value={policy.description ?? ''}
        error={fieldProblem('description')}
        onChange={(e) => onChange({ ...policy, description: e.currentTarget.value })}
      />
      {policy.rule_sets.map((set, s) => (
        <Stack key={set.id} gap="sm">
          <Title order={2} size="h3">
            Rule set: {set.name}
          </Title>
          {set.rules.map((rule, r) => (
            <RuleEditor
              // The index keys the editor: a rule's id is one of its editable fields.
              key={r}
              rule={rule}
              gates={gates}
              problems={ruleProblems(problems, `rule_sets[${s}].rules[${r}]`, rule)}
              onChange={(changed) => setRules(s, set.rules.map((old, i) => (i === r ? changed : old)))}
              onRemove={() => setRules(s, set.rules.filter((_, i) => i !== r))}
            />
          ))}
          <Button variant="light" onClick={() => addRule(s)} style={{ alignSelf: 'flex-start' }}>
            Add a rule to {set.name}
          </Button>
        </Stack>
      ))}
    </Stack>
  );
}
