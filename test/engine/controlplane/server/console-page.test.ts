/**
 * The console page in a real browser (Debian's headless Chromium driven by playwright-core, no
 * browser download): two engines connected, the graph drawn, a node paused and resumed from the
 * page. Writes `test/.artifacts/console.png` for a person to look at.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { firstValueFrom } from 'rxjs';
import * as assert from 'uvu/assert';
import { test, when } from '../../../support/suite.ts';
// The runner checks the same path before the run (support/tools.ts).
import { CHROMIUM } from '../../../support/tools.ts';
import { CONFIG, type EngineHarness, ORDERS_CONFIG, startEngineHarness } from '../engine-harness.ts';
import { freePort, sleep, waitFor } from '../support.ts';
import { nodeOf, startConsole } from './support.ts';

const SCREENSHOT = 'test/.artifacts/console.png';
// No network here: without these Chromium keeps dialling out and logging refused connections.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A fresh headless Chromium profile for `body`, removed afterwards. */
async function withBrowser(body: (browser: BrowserContext) => Promise<void>): Promise<void> {
  const profile = mkdtempSync(join(tmpdir(), 'streamfold-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1440, height: 860 },
  });
  try {
    await body(browser);
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const browserTest = when(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (apt-get install chromium)`);

browserTest(
  'the page shows both engines and the drawn graph; a node paused and resumed from it, as the engine reports',
  async () => {
    const cp = await startConsole();
    const orders = await startEngineHarness({
      address: cp.grpcAddress,
      config: ORDERS_CONFIG,
      feedbackIntervalMs: 300,
    });
    const views = await startEngineHarness({ address: cp.grpcAddress, feedbackIntervalMs: 300 });
    let flowing = false;
    let flow = Promise.resolve();
    try {
      await withBrowser(async (browser) => {
        await waitFor('both engines', async () => (await cp.view()).engines.length === 2);
        const page = await browser.newPage();
        await page.goto(`${cp.url}/#${ORDERS_CONFIG.id}`);
        const engines = page.getByRole('navigation', { name: 'Engines' });
        await engines.getByRole('link', { name: new RegExp(ORDERS_CONFIG.id) }).waitFor();
        await engines.getByRole('link', { name: new RegExp(CONFIG.id) }).waitFor();
        const graph = page.getByRole('img', { name: /Graph of cpOrders01: 2 nodes, heads customers/ });
        await graph.waitFor();
        assert.is(await graph.locator('g.node').count(), 2);
        assert.is(await graph.locator('.edge-label').textContent(), 'customers.id = orders.customerId');
        assert.match((await graph.locator('g.node', { hasText: 'customers' }).textContent()) ?? '', /★ head/);
        await page.getByText('Gated:').waitFor();

        await page.getByRole('button', { name: 'Resume all engines' }).click();
        await waitFor('both engines released', async () => (await cp.view()).engines.every((e) => !e.gated));
        await page.locator('g.node.state-running', { hasText: 'customers' }).waitFor();
        await orders.produce('orders', 0, 40);

        await page.getByRole('button', { name: 'Pause customers' }).click();
        await page.locator('g.node.state-paused', { hasText: 'customers' }).waitFor();
        await page.locator('tr[data-node="customers"] .badge', { hasText: 'paused' }).waitFor();
        assert.ok(await firstValueFrom(orders.plane.paused('customers')), 'the engine paused the node');
        assert.is(
          nodeOf(await cp.engine(ORDERS_CONFIG.id), 'customers')?.state,
          'paused',
          'its feedback agrees',
        );
        assert.not.ok(await firstValueFrom(views.plane.paused('customers')), 'the other engine is untouched');
        await page
          .locator('li[data-request]', { hasText: 'cpOrders01: pause customers' })
          .getByText('accepted')
          .waitFor();
        await orders.produce('customers', 0, 7);
        await page.locator('tr[data-node="customers"] td.number', { hasText: /^7$/ }).waitFor();
        // For the screenshot: orders keep flowing, so the running node shows a rate.
        flowing = true;
        flow = (async () => {
          for (let id = 40; flowing; id += 5) {
            await orders.produce('orders', id, 5);
            await sleep(40);
          }
        })();
        await page
          .locator('tr[data-node="orders"] td.number', { hasText: /^(?!0\.0 )[\d.]+ msg\/s$/ })
          .waitFor();
        mkdirSync('test/.artifacts', { recursive: true });
        await page.screenshot({ path: SCREENSHOT, fullPage: true });
        flowing = false;
        await flow;

        // The keyboard alone: focus the button and press Enter.
        const resume = page.getByRole('button', { name: 'Resume customers' });
        await resume.focus();
        const held = await resume.elementHandle();
        await page.keyboard.press('Enter');
        await page.locator('g.node.state-running', { hasText: 'customers' }).waitFor();
        assert.not.ok(await firstValueFrom(orders.plane.paused('customers')), 'the engine resumed the node');
        await waitFor(
          'the engine consumed what came in while paused',
          async () => (await orders.consumed('customers')) === 7,
        );
        // Live updates came in between (the graph shows it running): the button is the same
        // element, still focused, not a copy the focus was moved to.
        assert.equal(
          await held!.evaluate((b) => ({ attached: b.isConnected, focused: b.matches(':focus') })),
          { attached: true, focused: true },
          'focus stays on the button across live updates',
        );

        // A press that spans a live update (mouse down before it, up after it) is a click.
        const feedback = page.locator('table.instances td.number');
        const before = await feedback.textContent();
        await page.getByRole('button', { name: 'Pause orders' }).hover();
        await page.mouse.down();
        await waitFor(
          'a live update while the button is held',
          async () => (await feedback.textContent()) !== before,
        );
        await page.mouse.up();
        await page.locator('li[data-request]', { hasText: 'cpOrders01: pause orders' }).waitFor();
        await page.locator('g.node.state-paused', { hasText: 'orders' }).waitFor();
      });
    } finally {
      flowing = false;
      await flow;
      await orders.close();
      await views.close();
      await cp.close();
    }
  },
);

browserTest(
  'a gated engine shows the countdown to its resumeAfterMs release; a request an instance rejects shows the reason',
  async () => {
    const port = await freePort();
    // It fails to reach the control plane first: its release time starts then.
    const gated = await startEngineHarness({ address: `127.0.0.1:${port}`, resumeAfterMs: 90_000 });
    const cp = await startConsole({ grpcPort: port });
    let newer: EngineHarness | undefined;
    try {
      await withBrowser(async (browser) => {
        const page = await browser.newPage();
        await page.goto(cp.url);
        const countdown = page.locator('.gated-banner .countdown');
        const seconds = async () => Number(/^(\d+) s$/.exec((await countdown.textContent()) ?? '')?.[1]);
        await countdown.waitFor();
        const first = await seconds();
        assert.ok(first > 60 && first <= 90, `counts down from resumeAfterMs (${first} s)`);
        await waitFor('the countdown to tick', async () => (await seconds()) < first);

        await page.getByRole('button', { name: `Resume every node of ${CONFIG.id}` }).click();
        await page
          .locator('li[data-request]', { hasText: `${CONFIG.id}: resume all nodes` })
          .getByText('accepted')
          .waitFor();
        await countdown.waitFor({ state: 'detached' });

        // A second instance with a node the first lacks: pausing it, the first one rejects.
        newer = await startEngineHarness({
          address: cp.grpcAddress,
          config: { ...ORDERS_CONFIG, id: CONFIG.id },
        });
        await page.getByRole('button', { name: 'Pause orders' }).click();
        const rejected = page.locator('li[data-request]', { hasText: `${CONFIG.id}: pause orders` });
        await rejected.getByText('rejected').waitFor();
        assert.match(
          (await rejected.locator('.reason').textContent()) ?? '',
          /: nodes\[0\]: unknown node "orders"/,
        );
      });
    } finally {
      await newer?.close();
      await gated.close();
      await cp.close();
    }
  },
);

test.run();
