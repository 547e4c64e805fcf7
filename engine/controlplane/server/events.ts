import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { auditTime } from 'rxjs';
import { consoleView } from './console-view.ts';
import type { ControlPlaneState } from './state.ts';

/** At most this often a page gets a new state: feedback from many engines comes in bursts. */
const THROTTLE_MS = 250;

/**
 * `GET /api/events`: server-sent events, one `state` event (the whole console view, small) now
 * and after every change, so the page updates without reloading.
 */
export function stateEvents(state: ControlPlaneState) {
  return (c: Context) =>
    streamSSE(c, async (stream) => {
      let id = 0;
      const push = async () => {
        await stream.writeSSE({
          event: 'state',
          id: String(++id),
          data: JSON.stringify(await consoleView(state)),
        });
      };
      await push();
      const subscription = state.changed.pipe(auditTime(THROTTLE_MS)).subscribe(() => void push());
      await new Promise<void>((resolve) => stream.onAbort(resolve));
      subscription.unsubscribe();
    });
}
