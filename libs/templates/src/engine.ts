/**
 * The two Liquid engines (liquidjs) that render communication templates: `html` for email bodies,
 * `text` for SMS, letter text and email subjects. Both are strict (an unknown variable or filter
 * is an error, docs/api.md section 13) and escape every `{{ output }}` by default:
 *
 * - `html`: HTML-escaped (`&`, `<`, `>`, `"`, `'`, liquidjs `escape`), so data can never add
 *   markup to an email; control and bidirectional-override characters are removed as below.
 * - `text`: plain text has no markup to escape, but data must not change the message's shape
 *   either: line breaks in a value (CR, LF, NEL, U+2028/9) become one space, so a customer name
 *   cannot add lines such as forged payment instructions to a letter or an SMS, and control and
 *   bidirectional-override characters are removed, so a value cannot hide or reorder text. Line
 *   breaks written in the template itself are kept.
 *
 * The `raw` filter (which would bypass escaping) is removed, and the tags that read other
 * templates (`include`, `render`, `layout`) are refused when parsing: a template is one
 * self-contained text. Parse size, render time and memory are bounded (liquidjs DoS limits).
 */
import { filters, Liquid, type Context } from 'liquidjs';
import { formatMoney } from './money.js';

/** How `{{ output }}` is escaped: HTML for email bodies, plain text for everything else. */
export type OutputKind = 'html' | 'text';

/** Longest template source, characters (liquidjs `parseLimit`). */
export const MAX_TEMPLATE_LENGTH = 100_000;
/** Longest render, milliseconds (liquidjs `renderLimit`). */
export const RENDER_LIMIT_MS = 1_000;
/** Most allocations in one render (liquidjs `memoryLimit`, roughly characters and array items). */
export const MEMORY_LIMIT = 10_000_000;

// C0 and C1 controls except TAB, and the bidirectional formatting characters (Unicode TR9).
// eslint-disable-next-line no-control-regex -- matching control characters is what this expression is for
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const LINE_BREAKS = /(?:\r\n|[\r\n\u0085\u2028\u2029])+/g;

/** An output value as text, as Liquid prints it (null and undefined print nothing). */
function outputText(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- Liquid prints any value with its own String conversion
  return String(value ?? '');
}

/**
 * Plain-text escaping of one output value: line breaks folded to one space, control and
 * bidirectional-override characters removed.
 */
export function escapePlainText(value: unknown): string {
  return outputText(value).replace(LINE_BREAKS, ' ').replace(CONTROL, '');
}

/** HTML escaping of one output value (liquidjs `escape`, bound to the filter context liquidjs calls it with), controls removed first. */
function escapeHtml(this: unknown, value: unknown): string {
  return (filters.escape as (this: unknown, s: string) => string).call(this, outputText(value).replace(CONTROL, ''));
}

/** Tags that would pull in other templates: refused with a clear parse error. */
const PARTIAL_TAGS = ['include', 'render', 'layout'];

function createEngine(kind: OutputKind): Liquid {
  const liquid = new Liquid({
    strictVariables: true,
    strictFilters: true,
    ownPropertyOnly: true,
    outputEscape: kind === 'html' ? escapeHtml : escapePlainText,
    // No file system: even if a partial tag slipped through, nothing could be read from disk.
    templates: {},
    parseLimit: MAX_TEMPLATE_LENGTH,
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: MEMORY_LIMIT,
  });
  liquid.unregisterFilter('raw');
  for (const name of PARTIAL_TAGS) {
    liquid.registerTag(name, {
      parse() {
        throw new Error(`tag "${name}" is not available in communication templates`);
      },
      render() {},
    });
  }
  liquid.registerFilter('money', function (this: { context: Context }, minor: unknown, currency?: unknown) {
    const code = currency ?? this.context.getSync(['amounts', 'currency']);
    if (typeof minor !== 'number' && typeof minor !== 'bigint') throw new TypeError(`money: expects an amount in minor units, got ${JSON.stringify(minor)}`);
    return formatMoney(minor, String(code));
  });
  return liquid;
}

const engines: Record<OutputKind, Liquid> = { html: createEngine('html'), text: createEngine('text') };

/** The shared engine for `kind` (engines hold no per-template state). */
export function engine(kind: OutputKind): Liquid {
  return engines[kind];
}
