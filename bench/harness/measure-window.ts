import { EventEmitter } from 'node:events';

/**
 * The measured part of a run: `kafka-run.ts` emits `start` when the target starts reading and
 * `end` when it is idle, so that instruments loaded beside it (`kafka-trace.ts`) count only that.
 */
export const measureWindow = new EventEmitter<{ start: []; end: [] }>();
