import { createRequire } from 'node:module';
import type { ELK as ElkApi, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { EngineGraph } from '../messages.ts';

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 74;
/** An estimate of the console's 12px monospace label font, for ELK to leave room for labels. */
const LABEL_CHAR_WIDTH = 7.3;
const LABEL_HEIGHT = 16;

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface GraphLayout {
  readonly width: number;
  readonly height: number;
  readonly nodes: Readonly<Record<string, Point>>;
  readonly edges: Readonly<
    Record<string, { readonly points: readonly Point[]; readonly label: Point | null }>
  >;
}

type Graph = Pick<EngineGraph, 'nodes' | 'edges'>;

// The bundled build runs ELK in this thread (no worker); it is CommonJS, hence `require`.
const ELK = createRequire(import.meta.url)('elkjs/lib/elk.bundled.js') as new () => ElkApi;
const elk = new ELK();
/** Graphs change only with a configuration: one layout per distinct graph. */
const cache = new Map<string, Promise<GraphLayout>>();

/** Top-down layered layout (heads on top) with edge labels, by ELK; computed once per graph. */
export function layoutGraph(graph: Graph): Promise<GraphLayout> {
  const key = JSON.stringify([graph.nodes.map((n) => n.id), graph.edges]);
  let layout = cache.get(key);
  if (!layout) {
    layout = computeLayout(graph);
    cache.set(key, layout);
  }
  return layout;
}

async function computeLayout(graph: Graph): Promise<GraphLayout> {
  const input: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.padding': '[top=20,left=20,bottom=20,right=20]',
      'elk.layered.spacing.nodeNodeBetweenLayers': '70',
      'elk.spacing.nodeNode': '50',
      'elk.spacing.edgeLabel': '6',
      'elk.edgeLabels.inline': 'false',
    },
    children: graph.nodes.map((n) => ({ id: n.id, width: NODE_WIDTH, height: NODE_HEIGHT })),
    edges: graph.edges.map((e) => ({
      id: e.id,
      sources: [e.parent],
      targets: [e.child],
      labels: [{ text: e.sentence, width: e.sentence.length * LABEL_CHAR_WIDTH, height: LABEL_HEIGHT }],
    })),
  };
  const laid = await elk.layout(input);
  return {
    width: laid.width ?? 0,
    height: laid.height ?? 0,
    nodes: Object.fromEntries(
      (laid.children ?? []).map((n: ElkNode) => [n.id, { x: n.x ?? 0, y: n.y ?? 0 }]),
    ),
    edges: Object.fromEntries(
      ((laid.edges ?? []) as ElkExtendedEdge[]).map((e) => {
        const section = e.sections?.[0];
        const points = section ? [section.startPoint, ...(section.bendPoints ?? []), section.endPoint] : [];
        const label = e.labels?.[0];
        return [e.id, { points, label: label ? { x: label.x ?? 0, y: label.y ?? 0 } : null }];
      }),
    ),
  };
}
