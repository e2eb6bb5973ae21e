/**
 * A modal dialog named by its title. Mantine's Modal renders its header as a <header> outside any sectioning
 * element, which makes it a second banner landmark beside the application's (axe: landmark-no-duplicate-banner),
 * so the header here has no landmark role; the close button is labelled. The page behind does not get its scroll
 * locked: Mantine locks it with react-remove-scroll, whose injected <style> carries no nonce and breaks the CSP.
 */
import { Modal, type ModalRootProps } from '@mantine/core';
import type { ReactNode } from 'react';

export function Dialog({ title, onClose, size, children }: { title: string; onClose(): void; size?: ModalRootProps['size']; children: ReactNode }) {
  return (
    <Modal.Root opened onClose={onClose} size={size} lockScroll={false}>
      <Modal.Overlay />
      <Modal.Content>
        <Modal.Header role="none">
          <Modal.Title>{title}</Modal.Title>
          <Modal.CloseButton aria-label="Close" />
        </Modal.Header>
        <Modal.Body>{children}</Modal.Body>
      </Modal.Content>
    </Modal.Root>
  );
}
