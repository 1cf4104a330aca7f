/**
 * The local SMTP server's two web pages, rendered with liquidjs with every output HTML-escaped
 * (mail is untrusted data): the list of messages, and one message with its headers, its text and
 * its HTML shown in a sandboxed frame (scripts, forms and navigation disabled).
 */
import { Liquid } from 'liquidjs';
import { simpleParser } from 'mailparser';
import type { StoredMail } from './mail-store.js';

const liquid = new Liquid({ outputEscape: 'escape', strictVariables: true, strictFilters: true, templates: {} });

const STYLE = `<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4em;text-align:left}
.inbound{color:#06c}iframe{width:100%;height:32em;border:1px solid #ccc}pre{white-space:pre-wrap;background:#f6f6f6;padding:1em}</style>`;

const LIST = liquid.parse(`<!doctype html><html><head><meta charset="utf-8"><title>Local mail</title>${STYLE}</head><body>
<h1>Local mail ({{ total }})</h1><p>The newest {{ messages.size }} of the messages the services sent, and the replies and bounces. JSON: <a href="/api/messages">/api/messages</a>.</p>
<table><tr><th>received</th><th></th><th>from</th><th>to</th><th>subject</th></tr>
{% for m in messages %}<tr class="{{ m.direction }}"><td>{{ m.receivedAt }}</td><td>{{ m.direction }}</td><td>{{ m.from }}</td><td>{{ m.to }}</td>
<td><a href="/messages/{{ m.id | url_encode }}">{{ m.subject | default: "(no subject)" }}</a></td></tr>{% endfor %}</table></body></html>`);

const MESSAGE = liquid.parse(`<!doctype html><html><head><meta charset="utf-8"><title>{{ m.subject }}</title>${STYLE}</head><body>
<p><a href="/">All messages</a> · <a href="/api/messages/{{ m.id | url_encode }}/raw">raw</a></p><h1>{{ m.subject | default: "(no subject)" }}</h1>
<table>{% for h in headers %}<tr><th>{{ h[0] }}</th><td>{{ h[1] }}</td></tr>{% endfor %}</table>
{% if html %}<h2>HTML</h2><iframe sandbox srcdoc="{{ html }}"></iframe>{% endif %}{% if text %}<h2>Text</h2><pre>{{ text }}</pre>{% endif %}</body></html>`);

/** The list page: `messages` (the newest) of `total`. */
export function listPage(messages: StoredMail[], total: number): string {
  return liquid.renderSync(LIST, { messages, total });
}

/** One message's page. */
export async function messagePage(mail: StoredMail, raw: Buffer): Promise<string> {
  const parsed = await simpleParser(raw, { skipImageLinks: true });
  const headers = [
    ['Envelope', `${mail.envelope.from || '<>'} -> ${mail.envelope.to.join(', ')}`],
    ...parsed.headerLines
      .filter((h) => /^(from|to|cc|reply-to|date|message-id|in-reply-to)$/i.test(h.key))
      .map((h) => [h.key, h.line.slice(h.line.indexOf(':') + 1).trim()]),
  ];
  return liquid.renderSync(MESSAGE, { m: mail, headers, html: parsed.html || '', text: parsed.text ?? '' });
}
