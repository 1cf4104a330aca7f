/**
 * The statuses of an import (docs/api.md section 16) as a machine: `queued` when its file is
 * stored, `processing` once a worker applies its rows, then `completed` (every row applied or
 * refused with its error) or `failed` (the file refused whole, with the reason). `receiving` is the
 * upload in progress, never visible: the upload's transaction leaves it before it commits.
 */
import { defineMachine } from '../kernel/machine.js';

/** Every status an import row may hold. */
export const IMPORT_STATUSES = ['receiving', 'queued', 'processing', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** The statuses the API shows. */
export const SHOWN_IMPORT_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;

/** The import machine. */
export const IMPORT_MACHINE = defineMachine({
  noun: 'import',
  statuses: IMPORT_STATUSES,
  table: {
    queue: { from: ['receiving'], to: 'queued' },
    refuse: { from: ['receiving'], to: 'failed' },
    start: { from: ['queued'], to: 'processing' },
    complete: { from: ['processing'], to: 'completed' },
  },
});

export type ImportMove = (typeof IMPORT_MACHINE.moves)[number];
