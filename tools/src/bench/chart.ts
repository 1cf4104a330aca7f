/**
 * The report's chart (vega-lite, rendered to SVG headless by vega's View): throughput and p50
 * latency of every measured run, side by side, on log scales (OFFSET paging and raw signing sit
 * orders of magnitude from the API figures), coloured by the run's role.
 */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ScenarioResult, SizeSeries } from './model.js';

const KIND_LABEL: Record<string, string> = {
  service: 'our service',
  ceiling: 'ceiling (same run)',
  contrast: 'contrast',
  reference: 'reference',
};

/** Renders the chart of `results` as an SVG document. */
export async function renderChart(results: ScenarioResult[]): Promise<string> {
  const values = results.flatMap((r) =>
    r.runs.map((x) => ({ run: `${r.title}: ${x.label}`, role: KIND_LABEL[x.kind], rps: x.rps, p50: Number.isFinite(x.p50) ? x.p50 : null })),
  );
  const order = values.map((v) => v.run);
  // An explicit domain keeps the rows of both panels aligned even where a run has no p50.
  const y = { field: 'run', type: 'nominal', sort: order, scale: { domain: order }, title: null, axis: { labelLimit: 0 } } as const;
  const yHidden = { ...y, axis: null } as const;
  const color = {
    field: 'role',
    type: 'nominal',
    title: null,
    scale: { domain: Object.values(KIND_LABEL), range: ['#2f6db3', '#9aa5b1', '#d2691e', '#6aa84f'] },
    legend: { orient: 'bottom' },
  } as const;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'Debt Management Service benchmarks', subtitle: 'each figure beside its ceiling, same run, same machine' },
    data: { values },
    config: { font: 'Helvetica, Arial, sans-serif', view: { stroke: null }, axis: { labelLimit: 520, labelFontSize: 11 } },
    hconcat: [
      {
        width: 300,
        height: { step: 18 },
        title: 'Throughput (operations/s, log)',
        layer: [
          // Log-scale bars need an explicit positive base (x2), zero has no place on a log axis.
          { mark: { type: 'bar' }, encoding: { y, x: { field: 'rps', type: 'quantitative', scale: { type: 'log' }, title: null }, x2: { datum: 1 }, color } },
          {
            mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 },
            encoding: { y, x: { field: 'rps', type: 'quantitative' }, text: { field: 'rps', type: 'quantitative', format: ',.0f' } },
          },
        ],
      },
      {
        width: 240,
        height: { step: 18 },
        title: 'p50 latency (ms, log)',
        transform: [{ filter: 'datum.p50 != null' }],
        layer: [
          {
            mark: { type: 'bar' },
            encoding: { y: yHidden, x: { field: 'p50', type: 'quantitative', scale: { type: 'log' }, title: null }, x2: { datum: 0.1 }, color },
          },
          {
            mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 },
            encoding: { y: yHidden, x: { field: 'p50', type: 'quantitative' }, text: { field: 'p50', type: 'quantitative', format: ',.2f' } },
          },
        ],
      },
    ],
  };
  return toSvg(spec);
}

async function toSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Renders a size series as an SVG document: on-disk size (MiB, left axis) and cumulative events
 * written (right axis) against seconds since the load started, with the window boundaries ruled.
 */
export async function renderSizeChart(series: SizeSeries): Promise<string> {
  const values = series.points.map((p) => ({ t: Math.round(p.t), mib: p.bytes / 2 ** 20, written: p.written }));
  const end = series.points.length ? series.points[series.points.length - 1]!.t : 0;
  const rules = [];
  for (let t = series.windowSec; t < end; t += series.windowSec) rules.push({ t });
  const x = { field: 't', type: 'quantitative', title: 'seconds since the load started' } as const;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: series.title, subtitle: 'grey rules: one retention window each' },
    width: 560,
    height: 220,
    config: { font: 'Helvetica, Arial, sans-serif', view: { stroke: null } },
    layer: [
      { data: { values: rules }, mark: { type: 'rule', color: '#9aa5b1', strokeDash: [4, 3] }, encoding: { x } },
      {
        data: { values },
        mark: { type: 'line', color: '#2f6db3', point: { size: 12, color: '#2f6db3' } },
        encoding: { x, y: { field: 'mib', type: 'quantitative', title: 'on-disk size, MiB', axis: { titleColor: '#2f6db3' } } },
      },
      {
        data: { values },
        mark: { type: 'line', color: '#d2691e', strokeDash: [6, 3] },
        encoding: { x, y: { field: 'written', type: 'quantitative', title: 'events written (cumulative)', axis: { orient: 'right', titleColor: '#d2691e' } } },
      },
    ],
    resolve: { scale: { y: 'independent' } },
  };
  return toSvg(spec);
}
