import { type GraphLayout, layoutGraph } from './layout.ts';
import type { ControlPlaneState } from './state.ts';
import { type EngineView, type StateView, stateView } from './view.ts';

export interface ConsoleEngine extends EngineView {
  /** Where the page draws the graph's nodes and edges; null without a graph. */
  readonly layout: GraphLayout | null;
}

export interface ConsoleView extends StateView {
  readonly engines: readonly ConsoleEngine[];
}

/** The state as the API and the page's live updates serve it: the view plus each graph's layout. */
export async function consoleView(state: ControlPlaneState): Promise<ConsoleView> {
  const view = stateView(state);
  const engines = await Promise.all(
    view.engines.map(async (engine) => ({
      ...engine,
      layout: engine.graph ? await layoutGraph(engine.graph) : null,
    })),
  );
  return { ...view, engines };
}
