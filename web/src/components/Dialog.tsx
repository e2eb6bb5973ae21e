/**
 * A modal dialog named by its title. Mantine's Modal renders its header as a <header> outside any sectioning
 * element, which makes it a second banner landmark beside the application's (axe: landmark-no-duplicate-banner),
 * so the header here has no landmark role; the close button is labelled. The page behind is scroll-locked by
 * react-remove-scroll, whose <style> carries the page's nonce (set in main.tsx), as the CSP requires.
 */
import { Modal, type ModalRootProps } from '@mantine/core';
import type { ReactNode } from 'react';

export function Dialog({ title, onClose, size, children }: { title: string; onClose(): void; size?: ModalRootProps['size']; children: ReactNode }) {
  return (
    <Modal.Root opened onClose={onClose} size={size}>
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
