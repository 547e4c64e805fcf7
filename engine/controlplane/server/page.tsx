import type { FC } from 'hono/jsx';

export interface PageOptions {
  /** Changes need a token: the page asks for it. */
  readonly tokenRequired: boolean;
}

/**
 * The console's only page: the static frame. `console.js` fills it from the live updates
 * (`/api/events`) and sends the operator's pause and resume requests to the JSON API.
 */
export const ConsolePage: FC<PageOptions> = ({ tokenRequired }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>streamfold control plane</title>
      <link rel="stylesheet" href="/console.css" />
      <script type="module" src="/console.js" />
    </head>
    <body data-token-required={String(tokenRequired)}>
      <header>
        <h1>streamfold control plane</h1>
        <span id="connection" role="status">
          connecting…
        </span>
        {tokenRequired && (
          <label>
            Console token <input id="token" type="password" autocomplete="off" />
          </label>
        )}
        <button type="button" id="resume-all">
          Resume all engines
        </button>
      </header>
      <p id="notice" class="notice" role="status" aria-live="polite" />
      <div class="layout">
        <nav aria-label="Engines">
          <h2>Engines</h2>
          <ul id="engines" />
        </nav>
        <main id="engine" aria-live="off">
          <p class="empty">No engine has connected yet.</p>
        </main>
        <aside aria-label="Requests">
          <h2>Requests</h2>
          <ol id="requests" aria-live="polite" />
        </aside>
      </div>
    </body>
  </html>
);
