/**
 * Communication templates (docs/api.md section 13): checked when saved (`validateTemplate`),
 * compiled once per version (`compileTemplate`) and rendered per communication, each time strictly.
 *
 * A template has a `body` and, for email (required) and letters (optional), a `subject`. Email
 * bodies are HTML and HTML-escaped; subjects, SMS and letter text are plain text with the
 * plain-text escaping of engine.ts.
 */
import type { Template } from 'liquidjs';
import { engine, type OutputKind } from './engine.js';
import { fromLiquidError, problem, TemplateError, type Parsed, type TemplateField, type TemplateProblem } from './problems.js';
import { OBJECT_PATHS, SAMPLE_VARIABLES, VARIABLE_PATHS, type TemplateVariables } from './variables.js';

/** Delivery methods of communications (docs/api.md section 13). */
export const CHANNELS = ['email', 'sms', 'letter'] as const;
export type Channel = (typeof CHANNELS)[number];

/** A template's text as stored: Liquid sources of its fields. */
export interface TemplateSource {
  subject?: string | null;
  body: string;
}

/** What rendering produces: the subject (null when the channel has none) and the body, HTML for email, plain text otherwise. */
export interface RenderedTemplate {
  subject: string | null;
  body: string;
  format: 'html' | 'text';
}

/** A template checked and parsed once, rendered many times. */
export interface CompiledTemplate {
  readonly channel: Channel;
  /**
   * Renders with `variables` (see `buildTemplateVariables`).
   * @throws TemplateError when rendering fails (a missing variable, a render limit)
   */
  render(variables: TemplateVariables): RenderedTemplate;
}

/** Per channel: how each field is escaped, and whether it is required, optional or not allowed. */
const FIELDS: Record<Channel, Record<TemplateField, { kind: OutputKind; presence: 'required' | 'optional' | 'not_allowed' }>> = {
  email: { subject: { kind: 'text', presence: 'required' }, body: { kind: 'html', presence: 'required' } },
  sms: { subject: { kind: 'text', presence: 'not_allowed' }, body: { kind: 'text', presence: 'required' } },
  letter: { subject: { kind: 'text', presence: 'optional' }, body: { kind: 'text', presence: 'required' } },
};

const CHANNEL_NAMES: Record<Channel, string> = { email: 'an email', sms: 'an SMS', letter: 'a letter' };

// Properties Liquid gives every string (and array): `{{ customer.full_name.size }}` is valid.
const BUILT_IN_PROPERTIES = new Set(['size', 'first', 'last']);

/**
 * Checks a template before it is saved: every field parses, names only documented variables
 * (static analysis of every branch, not only the ones a sample takes) and known filters and tags,
 * and renders against `SAMPLE_VARIABLES`.
 * @param channel `email`, `sms` or `letter`
 * @returns every problem found, in field order; empty when the template is valid
 */
export function validateTemplate(source: TemplateSource, channel: Channel): TemplateProblem[] {
  return check(source, channel).problems;
}

/**
 * Checks (as `validateTemplate`) and parses a template once for rendering many times.
 * @throws TemplateError carrying every problem when the template is not valid
 */
export function compileTemplate(source: TemplateSource, channel: Channel): CompiledTemplate {
  const { problems, parsed } = check(source, channel);
  if (problems.length > 0) throw new TemplateError(problems);
  return {
    channel,
    render(variables) {
      const subject = parsed.subject ? renderField(parsed.subject, FIELDS[channel].subject.kind, variables, 'subject') : null;
      const body = renderField(parsed.body!, FIELDS[channel].body.kind, variables, 'body');
      return { subject: subject === null ? null : subject.trim(), body, format: FIELDS[channel].body.kind };
    },
  };
}

/**
 * Compiles and renders in one call (for one-off renders; the engine should compile once per
 * template version).
 * @throws TemplateError when the template is not valid or rendering fails
 */
export function renderTemplate(source: TemplateSource, channel: Channel, variables: TemplateVariables): RenderedTemplate {
  return compileTemplate(source, channel).render(variables);
}

function check(source: TemplateSource, channel: Channel): { problems: TemplateProblem[]; parsed: Partial<Record<TemplateField, Template[]>> } {
  const fields = FIELDS[channel];
  if (!fields) throw new RangeError(`unknown channel ${JSON.stringify(channel)} (one of ${CHANNELS.join(', ')})`);
  const problems: TemplateProblem[] = [];
  const parsed: Partial<Record<TemplateField, Template[]>> = {};
  for (const field of ['subject', 'body'] as const) {
    const text = source[field];
    const present = typeof text === 'string' && text.trim() !== '';
    const { kind, presence } = fields[field];
    if (!present) {
      if (presence === 'required') problems.push(problem('required', field, `${CHANNEL_NAMES[channel]} template needs a ${field}`));
      continue;
    }
    if (presence === 'not_allowed') {
      problems.push(problem('not_allowed', field, `${CHANNEL_NAMES[channel]} template has no ${field}`));
      continue;
    }
    const result = parse(text, kind, field);
    if (!result.ok) {
      problems.push(result.problem);
      continue;
    }
    const unknown = unknownVariables(result.templates, kind, field);
    problems.push(...unknown);
    if (unknown.length > 0) continue;
    try {
      renderField(result.templates, kind, SAMPLE_VARIABLES, field);
      parsed[field] = result.templates;
    } catch (err) {
      problems.push(...(err as TemplateError).problems);
    }
  }
  return { problems, parsed };
}

function parse(text: string, kind: OutputKind, field: TemplateField): Parsed {
  try {
    return { ok: true, templates: engine(kind).parse(text) };
  } catch (err) {
    return { ok: false, problem: fromLiquidError(err, field) };
  }
}

/** Variables the template reads from outside (liquidjs static analysis) that are not in the documented set. */
function unknownVariables(templates: Template[], kind: OutputKind, field: TemplateField): TemplateProblem[] {
  const out: TemplateProblem[] = [];
  const { globals } = engine(kind).analyzeSync(templates, { partials: false });
  for (const uses of Object.values(globals)) {
    for (const v of uses) {
      const bad = firstUnknownPath(v.segments);
      if (bad) out.push(problem('unknown_variable', field, `unknown variable ${bad}`, { line: v.location.row, column: v.location.col, variable: bad }));
    }
  }
  return out.sort((a, b) => a.line! - b.line! || a.column! - b.column!);
}

/** The shortest prefix of `segments` outside the documented set, or null when the path is valid. */
function firstUnknownPath(segments: ReadonlyArray<unknown>): string | null {
  let path = '';
  for (const segment of segments) {
    // A computed key (`amounts.formatted[field]`) is checked by the strict render.
    if (typeof segment !== 'string' && typeof segment !== 'number') return null;
    if (path && !OBJECT_PATHS.has(path)) return BUILT_IN_PROPERTIES.has(String(segment)) ? null : `${path}.${segment}`;
    const next = path ? `${path}.${segment}` : String(segment);
    if (!VARIABLE_PATHS.has(next)) return next;
    path = next;
  }
  return null;
}

function renderField(templates: Template[], kind: OutputKind, variables: TemplateVariables, field: TemplateField): string {
  try {
    return String(engine(kind).renderSync(templates, variables));
  } catch (err) {
    throw new TemplateError([fromLiquidError(err, field)]);
  }
}
