/** The policies area: the list, one policy, and its editor. */
import { Route, Routes } from 'react-router-dom';
import { PolicyEditorPage } from './PolicyEditorPage';
import { PolicyListPage } from './PolicyListPage';
import { PolicyViewPage } from './PolicyViewPage';

export function PoliciesPage() {
  return (
    <Routes>
      <Route index element={<PolicyListPage />} />
      <Route path=":policyId" element={<PolicyViewPage />} />
      <Route path=":policyId/edit" element={<PolicyEditorPage />} />
    </Routes>
  );
}
