/**
 * Journeys of one question per page (docs/api.md section 18): each step of a `Journey` is a page
 * at `<base>` (the first) or `<base>/<step>`; its answer is kept in the session until the check
 * page (`<base>/check`) sends them all to the journey's domain function; then `<base>/done`.
 * A bad answer is 400 with an error summary linking to the field (nothing kept); a journey whose
 * `load` finds nothing is the 404 page; one its `refusal` names is a 409 page saying why; an
 * ApiError from the domain naming a step's field shows that step again with the error, and a
 * refusal (`invalid_state_transition`, `resource_conflict`) the 409 page. Views `step*.liquid`;
 * words from `<ns>:<journey>.…` and the shared `steps:` catalogue.
 */
import { Router, type Request, type Response } from 'express';
import { ApiError } from '@dms/errors';
import { render, type FieldError } from './render.js';
import { languageOf } from './i18n.js';

declare module 'express-session' {
  interface SessionData {
    /** The answers of a step journey between its questions and its check page (steps.ts). */
    stepDraft: { key: string; answers: Record<string, Answer> };
  }
}

/** One answer: a choice or text, or several choices (checkboxes). */
export type Answer = string | string[];

/** A choice offered: its value and its words (a catalogue key, or a text already formatted). */
export interface Choice {
  value: string;
  key?: string;
  text?: string;
}

/** One question of a journey. */
export interface Step<C> {
  /** The form field's name and id; the page is `<base>/<name>` (the first step: `<base>`). */
  name: string;
  kind: 'radios' | 'checkboxes' | 'text' | 'textarea' | 'date' | 'hours';
  /** Choices of a radios, checkboxes or hours step (hours: the times offered). */
  choices?: (ctx: C, locale: string) => Choice[];
  /** Longest text of a text or textarea step. */
  maxLength?: number;
  /** The answer in the posted form, or the catalogue key of its error. */
  read: (body: Record<string, unknown>, ctx: C) => { value: Answer } | { error: string };
  /** The answer shown before the customer gives one (e.g. what is stored now). */
  initial?: (ctx: C) => Answer | undefined;
  /** The answer as the check page shows it. */
  shown: (value: Answer, ctx: C, locale: string) => Choice[];
}

/** A journey: where it lives, what it asks, what it does. */
export interface Journey<C> {
  /** Catalogue namespace and the journey's key in it (`<ns>:<id>.title`, `<ns>:<id>.<step>.label`, …). */
  ns: string;
  id: string;
  /** Express path of its first page (`/debts/:id/plan/delay`). */
  route: string;
  /** The context, or undefined for a 404 (nothing shown). */
  load: (req: Request) => Promise<C | undefined>;
  /** The page's own path (`/debts/dbt_1/plan/delay`). */
  base: (req: Request) => string;
  /** Where "back" goes. */
  back: (req: Request) => string;
  /** The catalogue key of why it cannot be done now (409), or undefined. */
  refusal: (ctx: C) => string | undefined;
  steps: Step<C>[];
  /** Makes the change (the domain function) with the checked answers. */
  submit: (req: Request, ctx: C, answers: Record<string, Answer>) => Promise<void>;
  /** Values for the done page's words. */
  done?: (ctx: C, locale: string) => Record<string, unknown>;
  /** Values for the questions' hints (`amount`, `date`). */
  hints?: (ctx: C, locale: string) => Record<string, unknown>;
  /** The creditor whose name brands the pages. */
  creditor?: (ctx: C) => string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** A step's `read` for one choice among `choices` (error `<key>`). */
export function chosen<C>(name: string, error: string, choices: (ctx: C) => readonly string[]): Step<C>['read'] {
  return (body, ctx) => {
    const v = str(body[name]);
    return choices(ctx).includes(v) ? { value: v } : { error };
  };
}

/** A step's `read` for text of 1 to `max` characters (errors `<prefix>_missing`, `<prefix>_long`). */
export function texted<C>(name: string, max: number, prefix: string): Step<C>['read'] {
  return (body) => {
    const v = str(body[name]).trim();
    if (v === '') return { error: `${prefix}_missing` };
    return v.length > max ? { error: `${prefix}_long` } : { value: v };
  };
}

/** Routes of `journey` on a new router. */
export function journeyRoutes<C>(journey: Journey<C>): Router {
  const r = Router();
  const key = (req: Request) => `${journey.id}:${journey.base(req)}`;
  const draft = (req: Request) => (req.session.stepDraft?.key === key(req) ? req.session.stepDraft.answers : {});
  const pathOf = (req: Request, i: number) => (i === 0 ? journey.base(req) : `${journey.base(req)}/${journey.steps[i]!.name}`);
  const common = (req: Request, ctx: C) => ({
    ns: journey.ns,
    id: journey.id,
    base: journey.base(req),
    back: journey.back(req),
    creditor: journey.creditor?.(ctx),
  });

  /** The context when the journey is open; otherwise the 404 or 409 page is sent. */
  async function open(req: Request, res: Response, refuse = true): Promise<C | undefined> {
    const ctx = await journey.load(req);
    if (ctx === undefined) return void (await render(req, res, 'not-found', {}, 404));
    const why = refuse ? journey.refusal(ctx) : undefined;
    if (why) return void (await render(req, res, 'step-refused', { ...common(req, ctx), why }, 409));
    return ctx;
  }

  function stepPage(req: Request, res: Response, ctx: C, i: number, values: Record<string, unknown> = {}, status = 200) {
    const step = journey.steps[i]!;
    const locale = languageOf(req);
    const label = `${journey.ns}:${journey.id}.${step.name}`;
    const value = draft(req)[step.name] ?? step.initial?.(ctx);
    return render(
      req,
      res,
      'step',
      {
        ...common(req, ctx),
        step,
        label,
        action: pathOf(req, i),
        choices: step.choices?.(ctx, locale) ?? [],
        value,
        hints: journey.hints?.(ctx, locale) ?? {},
        ...values,
      },
      status,
    );
  }

  journey.steps.forEach((step, i) => {
    const route = i === 0 ? journey.route : `${journey.route}/${step.name}`;
    r.get(route, async (req, res) => {
      const ctx = await open(req, res);
      if (ctx !== undefined) await stepPage(req, res, ctx, i);
    });
    r.post(route, async (req, res) => {
      const ctx = await open(req, res);
      if (ctx === undefined) return;
      const got = step.read((req.body ?? {}) as Record<string, unknown>, ctx);
      if ('error' in got) {
        const errors: FieldError[] = [{ field: step.name, message: `${journey.ns}:${journey.id}.${step.name}.${got.error}` }];
        const posted = (req.body as Record<string, unknown>)[step.name];
        return stepPage(req, res, ctx, i, { errors, value: typeof posted === 'string' ? posted.slice(0, 4000) : posted }, 400);
      }
      req.session.stepDraft = { key: key(req), answers: { ...draft(req), [step.name]: got.value } };
      const missing = journey.steps.findIndex((s) => !(s.name in req.session.stepDraft!.answers));
      res.redirect(303, missing === -1 ? `${journey.base(req)}/check` : pathOf(req, missing));
    });
  });

  /** The answers when every step has one; otherwise the redirect to the first unanswered step is sent. */
  function complete(req: Request, res: Response): Record<string, Answer> | undefined {
    const answers = draft(req);
    const missing = journey.steps.findIndex((s) => !(s.name in answers));
    if (missing === -1) return answers;
    res.redirect(303, pathOf(req, missing));
    return undefined;
  }

  r.get(`${journey.route}/check`, async (req, res) => {
    const ctx = await open(req, res);
    const answers = ctx === undefined ? undefined : complete(req, res);
    if (!answers) return;
    const locale = languageOf(req);
    const rows = journey.steps.map((s, i) => ({
      label: `${journey.ns}:${journey.id}.${s.name}.label`,
      shown: s.shown(answers[s.name]!, ctx!, locale),
      change: pathOf(req, i),
    }));
    await render(req, res, 'step-check', { ...common(req, ctx!), rows });
  });

  r.post(`${journey.route}/check`, async (req, res) => {
    const ctx = await open(req, res);
    const answers = ctx === undefined ? undefined : complete(req, res);
    if (!answers) return;
    try {
      await journey.submit(req, ctx!, answers);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const i = journey.steps.findIndex((s) => s.name === err.param);
      if (i >= 0) return stepPage(req, res, ctx!, i, { errors: [{ field: err.param!, message: `${journey.ns}:${journey.id}.${err.param}.rule` }] }, err.status);
      if (err.code === 'invalid_state_transition' || err.code === 'resource_conflict')
        return render(req, res, 'step-refused', { ...common(req, ctx!), why: `${journey.ns}:${journey.id}.refused` }, 409);
      throw err;
    }
    delete req.session.stepDraft;
    res.redirect(303, `${journey.base(req)}/done`);
  });

  r.get(`${journey.route}/done`, async (req, res) => {
    const ctx = await open(req, res, false);
    if (ctx !== undefined) await render(req, res, 'step-done', { ...common(req, ctx), values: journey.done?.(ctx, languageOf(req)) ?? {} });
  });
  return r;
}
