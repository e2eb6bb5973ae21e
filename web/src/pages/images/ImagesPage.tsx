import { NotBuiltYet } from '../../components/NotBuiltYet';

export function ImagesPage() {
  return <NotBuiltYet title="Images" />;
}
