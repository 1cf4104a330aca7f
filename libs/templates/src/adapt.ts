/**
 * A rendered message carried to another channel (docs/api.md section 13, "Fall-back to the next
 * usable channel"): when a strategy step cannot reach the customer on its own channel, the same
 * template's message goes on the next usable one, adapted to what that channel carries:
 * - to an SMS or a letter, HTML (an email's body) becomes plain text (html-to-text: paragraphs
 *   kept, a link shown as its text then its URL); an SMS carries no subject, a letter keeps it;
 * - to an email, plain text becomes HTML (each paragraph a `<p>`, line breaks `<br>`, `&<>"'`
 *   escaped by the `entities` package), and a message without a subject gets
 *   `fallbackSubject`.
 */
import { convert } from 'html-to-text';
import { escapeUTF8 } from 'entities';
import type { Channel, RenderedTemplate } from './template.js';

/** html-to-text settings: no wrapping (the channel wraps), links as `text [url]` unless the text is the URL. */
const TO_TEXT = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
  ],
};

/** Plain text as HTML: blank lines separate paragraphs, single line breaks become `<br>`. */
function textToHtml(text: string): string {
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map(
      (p) =>
        `<p>${p
          .split(/\r?\n/)
          .map((line) => escapeUTF8(line))
          .join('<br>')}</p>`,
    )
    .join('');
}

/**
 * `rendered` (a message rendered for its template's channel) as channel `to` carries it.
 * @param fallbackSubject the subject an email gets when `rendered` has none (an SMS template's message)
 */
export function adaptRendered(rendered: RenderedTemplate, to: Channel, fallbackSubject: string): RenderedTemplate {
  if (to === 'email') {
    const body = rendered.format === 'html' ? rendered.body : textToHtml(rendered.body);
    return { subject: rendered.subject ?? fallbackSubject, body, format: 'html' };
  }
  const body = rendered.format === 'html' ? convert(rendered.body, TO_TEXT).trim() : rendered.body;
  return { subject: to === 'sms' ? null : rendered.subject, body, format: 'text' };
}
