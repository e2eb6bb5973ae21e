import { NotBuiltYet } from '../../components/NotBuiltYet';

export function PoliciesPage() {
  return <NotBuiltYet title="Policies" />;
}
