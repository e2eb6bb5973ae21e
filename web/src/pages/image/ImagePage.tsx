import { NotBuiltYet } from '../../components/NotBuiltYet';

export function ImagePage() {
  return <NotBuiltYet title="Image" />;
}
