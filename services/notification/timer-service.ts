import { postJson, withSlash } from './http.ts';
import type { Reminder, ReminderBackend } from './reminders.ts';
import { withRetries } from './retry.ts';

/** Who asks the timer service for expirations (its `applicantService`). */
const APPLICANT = 'notification-manager';

export interface TimerServiceOptions {
  /** `TIMER_SERVICE_URL`. */
  readonly url: string;
  /** This service as the timer service reaches it (`TIMER_CALLBACK_URL`, else `http://<SERVICE_NAME>`). */
  readonly callbackUrl: string;
  readonly timeoutMs: number;
  readonly retries: number;
}

/**
 * Reminders through the platform's timer service: `POST /schedule` with the reminder's event as
 * the payload, posted back to this service's `POST /notification-events/` when it expires (a REST
 * output mode, as the reference does); `POST /abort` with the expiration id.
 */
export function timerService(options: TimerServiceOptions): ReminderBackend {
  const callback = new URL(withSlash(options.callbackUrl));
  const outputMode = {
    type: 'rest',
    method: 'post',
    protocol: callback.protocol.replace(':', ''),
    hostname: callback.hostname,
    ...(callback.port ? { port: Number(callback.port) } : {}),
    path: `${callback.pathname}notification-events/`,
  };
  const call = (route: string, body: unknown) =>
    withRetries(options.retries, () =>
      postJson(new URL(route, withSlash(options.url)).href, body, options.timeoutMs),
    );
  return {
    async schedule(reminder: Reminder) {
      const answer = await call('schedule', {
        payload: reminder.event,
        startDate: reminder.expirationDate.toISOString(),
        expirationIntervalMs: 1,
        applicantService: APPLICANT,
        outputMode,
      });
      const { expirationId } = JSON.parse(answer || '{}') as { expirationId?: unknown };
      if (typeof expirationId !== 'string' || expirationId === '')
        throw new Error(`the timer service answered no expirationId: ${answer.slice(0, 200)}`);
      return expirationId;
    },
    async abort(reminder: Reminder) {
      if (reminder.expirationId) await call('abort', { expirationId: reminder.expirationId });
    },
  };
}
