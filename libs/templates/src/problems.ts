/**
 * What is wrong with a template, as one typed shape for the API's 4xx answers and the engine's
 * `failed` communications: a code, the field (`subject` or `body`), the position (1-based line and
 * column) and the variable or filter at fault, plus a sentence naming all of them.
 */
import type { Template } from 'liquidjs';

/** Template fields: the subject (email, optional for letters) and the body. */
export type TemplateField = 'subject' | 'body';

export type TemplateProblemCode =
  /** Not valid Liquid (an unclosed tag or output, a bad expression). */
  | 'syntax'
  /** A variable outside the documented set (docs/api.md section 13). */
  | 'unknown_variable'
  /** A filter liquidjs does not have, or `raw`, which is removed. */
  | 'unknown_filter'
  /** A tag liquidjs does not have, or one that reads other templates (`include`, `render`, `layout`). */
  | 'unknown_tag'
  /** Rendering failed (e.g. `money` given a non-amount, a render or memory limit reached). */
  | 'render'
  /** A field the channel needs is missing or empty (an email's subject, any body). */
  | 'required'
  /** A field the channel does not have (an SMS subject). */
  | 'not_allowed';

/** One problem of one template field. */
export interface TemplateProblem {
  code: TemplateProblemCode;
  field: TemplateField;
  /** 1-based line of the offending token, when known. */
  line?: number;
  /** 1-based column of the offending token, when known. */
  column?: number;
  /** The variable path at fault, e.g. `customer.nickname` (code `unknown_variable`). */
  variable?: string;
  /** The filter at fault (code `unknown_filter`). */
  filter?: string;
  /** e.g. `body, line 2, column 4: unknown variable customer.nickname`. */
  message: string;
}

/** Raised by `compileTemplate` and `CompiledTemplate.render`: carries every problem found. */
export class TemplateError extends Error {
  readonly problems: TemplateProblem[];
  constructor(problems: TemplateProblem[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'TemplateError';
    this.problems = problems;
  }
}

/** Builds a problem with its sentence. */
export function problem(
  code: TemplateProblemCode,
  field: TemplateField,
  detail: string,
  at: Partial<Omit<TemplateProblem, 'code' | 'field' | 'message'>> = {},
): TemplateProblem {
  const where = at.line !== undefined ? `, line ${at.line}, column ${at.column}` : '';
  return { code, field, ...at, message: `${field}${where}: ${detail}` };
}

/** liquidjs errors as far as we read them (LiquidError and its subclasses). */
interface LiquidLikeError extends Error {
  token?: { getPosition(): [number, number] };
  originalError?: Error & { variableName?: string };
}

/**
 * Maps an error thrown by liquidjs while parsing or rendering `field` to a problem. liquidjs names
 * the error class and keeps the original message (e.g. `undefined filter: nope`) and the token.
 */
export function fromLiquidError(err: unknown, field: TemplateField): TemplateProblem {
  const e = err as LiquidLikeError;
  const base = (e.originalError?.message ?? e.message ?? String(err)).replace(/, line:\d+, col:\d+$/, '');
  const position = e.token?.getPosition?.();
  const at = position ? { line: position[0], column: position[1] } : {};
  if (e.name === 'UndefinedVariableError') {
    const variable = e.originalError?.variableName ?? base.replace(/^undefined variable: /, '');
    return problem('unknown_variable', field, `unknown variable ${variable}`, { ...at, variable });
  }
  const filter = /^undefined filter: (.+)$/.exec(base)?.[1];
  if (filter) return problem('unknown_filter', field, `unknown filter ${filter}${filter === 'raw' ? ' (output is always escaped)' : ''}`, { ...at, filter });
  if (/^tag .+ (not found|is not available)/.test(base)) return problem('unknown_tag', field, base, at);
  if (e.name === 'TokenizationError' || e.name === 'ParseError') return problem('syntax', field, base, at);
  return problem('render', field, base, at);
}

/** The parsed form of one field, or the problem that stopped parsing. */
export type Parsed = { ok: true; templates: Template[] } | { ok: false; problem: TemplateProblem };
